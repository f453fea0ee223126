package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code grant: refreshToken}, {@code secretKey} and {@code watukuy auth set} in YAML and on the
 * command line (issue 19, section 1; docs/config.md, "auth" and "secretKey"): the config errors
 * with FILE:LINE and exit 2, a refresh token from the environment that seeds the store and rotates,
 * and no token in anything printed. One process, a memory store; the run of two daemons on
 * PostgreSQL is OAuth2RefreshTokenExampleTest (examples/oauth2-refresh-token).
 */
class RefreshTokenConfigTest {
  private static final String KEY = Base64.getEncoder().encodeToString(new byte[32]);
  private static final String SEED = "rt-seed-0a1b2c";

  @TempDir Path dir;
  private HttpServer server;
  private final Set<String> valid = ConcurrentHashMap.newKeySet();
  private final List<String> bearer = new CopyOnWriteArrayList<>();
  private final AtomicInteger issued = new AtomicInteger();

  @BeforeEach
  void start() throws IOException {
    valid.add(SEED);
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/token",
        ex -> {
          String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          String rt = "";
          for (String pair : body.split("&"))
            if (pair.startsWith("refresh_token="))
              rt = URLDecoder.decode(pair.substring(14), StandardCharsets.UTF_8);
          int n = issued.incrementAndGet();
          boolean ok = valid.remove(rt);
          if (ok) valid.add("rt-rotated-" + n);
          byte[] out =
              (ok
                      ? "{\"access_token\":\"at-"
                          + n
                          + "\",\"token_type\":\"Bearer\",\"expires_in\":300,\"refresh_token\":\"rt-rotated-"
                          + n
                          + "\"}"
                      : "{\"error\":\"invalid_grant\",\"error_description\":\"unknown token "
                          + rt
                          + "\"}")
                  .getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().set("Content-Type", "application/json");
          ex.sendResponseHeaders(ok ? 200 : 400, out.length);
          ex.getResponseBody().write(out);
          ex.close();
        });
    server.createContext(
        "/orders",
        ex -> {
          bearer.add(String.valueOf(ex.getRequestHeaders().getFirst("Authorization")));
          byte[] out = "[{\"id\":1}]".getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(200, out.length);
          ex.getResponseBody().write(out);
          ex.close();
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private String base() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private String yaml(String secretKey, String extra) {
    return "store: memory\n"
        + secretKey
        + "auths:\n"
        + "  crm:\n"
        + "    type: oauth2\n"
        + "    grant: refreshToken\n"
        + "    tokenUrl: "
        + base()
        + "/token\n"
        + "    clientId: watukuy\n"
        + "    refreshToken: ${CRM_REFRESH_TOKEN}\n"
        + extra
        + "  plain: { type: bearer, token: abc }\n"
        + "pollers:\n"
        + "  - name: orders\n"
        + "    auth: crm\n"
        + "    request: { url: "
        + base()
        + "/orders }\n"
        + "    response: { items: \"\" }\n"
        + "    identity: /id\n"
        + "    cursor: { strategy: snapshotDiff }\n";
  }

  private String[] cli(String yaml, String... args) throws IOException {
    return cli(Map.of("CRM_REFRESH_TOKEN", SEED, "WATUKUY_SECRET_KEY", KEY), yaml, args);
  }

  private String[] cli(Map<String, String> env, String yaml, String... args) throws IOException {
    Path file = dir.resolve("watukuy.yaml");
    Files.writeString(file, yaml);
    // CONFIG goes after the command's words: "run CONFIG --once", "auth set CONFIG NAME".
    int words = args[0].equals("auth") ? 2 : 1;
    String[] argv = new String[args.length + 1];
    System.arraycopy(args, 0, argv, 0, words);
    argv[words] = file.toString();
    System.arraycopy(args, words, argv, words + 1, args.length - words);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            argv,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            env::get);
    return new String[] {
      String.valueOf(code),
      out.toString(StandardCharsets.UTF_8),
      err.toString(StandardCharsets.UTF_8).replace(file.toString(), "watukuy.yaml")
    };
  }

  @Test
  void aRefreshTokenGrantWithoutSecretKeyIsAConfigErrorAtTheGrantsLine() throws IOException {
    String[] r = cli(yaml("", ""), "validate");

    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2])
        .startsWith(
            "watukuy: watukuy.yaml:5: auths.crm.grant: refreshToken keeps the rotating refresh"
                + " token in the store, sealed: set a top-level secretKey")
        .endsWith("nothing is stored in clear\n");
  }

  @Test
  void aSecretKeyOfTheWrongLengthNamesTheFieldAndNeverTheValue() throws IOException {
    String shortKey = Base64.getEncoder().encodeToString("sixteen-byte-key".getBytes());
    String[] one = cli(yaml("secretKey: " + shortKey + "\n", ""), "validate");
    String[] listed =
        cli(
            yaml(
                "secretKey:\n  - { id: k2, key: \"${WATUKUY_SECRET_KEY}\" }\n  - { id: k1, key: "
                    + shortKey
                    + " }\n",
                ""),
            "validate");

    assertThat(one[0]).isEqualTo("2");
    assertThat(one[2])
        .startsWith(
            "watukuy: watukuy.yaml:2: secretKey: secretKey must be 32 bytes in base64 (AES-256),"
                + " but was 16 bytes")
        .doesNotContain(shortKey);
    assertThat(listed[0]).isEqualTo("2");
    assertThat(listed[2])
        .startsWith("watukuy: watukuy.yaml:4: secretKey[1]: secretKey[2].key must be 32 bytes")
        .doesNotContain(shortKey);
  }

  @Test
  void theSeedFromTheEnvironmentIsRefreshedAndTheAccessTokenSentButNeverPrinted()
      throws IOException {
    String[] r = cli(yaml("secretKey: ${WATUKUY_SECRET_KEY}\n", ""), "run", "--once");

    assertThat(r[0]).as(r[2]).isEqualTo("0");
    assertThat(bearer).containsExactly("Bearer at-1");
    assertThat(valid).containsExactly("rt-rotated-1");
    assertThat(r[1] + r[2]).doesNotContain(SEED, "rt-rotated-1", "at-1", KEY);
  }

  @Test
  void aRevokedRefreshTokenFailsTheRunWithTheServersMessageHidden() throws IOException {
    valid.clear();
    String[] r = cli(yaml("secretKey: ${WATUKUY_SECRET_KEY}\n", ""), "run", "--once");

    assertThat(r[0]).isEqualTo("1");
    assertThat(r[2]).contains("invalid_grant").contains("watukuy auth set CONFIG crm");
    assertThat(r[2]).doesNotContain(SEED);
    assertThat(bearer).as("no request went out without a token").isEmpty();
  }

  @Test
  void aTokenStoredByAuthSetWinsOverTheSeedAndRotatesInASqliteStore() throws IOException {
    valid.clear();
    valid.add("rt-set-by-operator");
    Files.writeString(dir.resolve("token.txt"), "rt-set-by-operator\n");
    String yaml =
        yaml("secretKey: ${WATUKUY_SECRET_KEY}\n", "")
            .replace("store: memory", "store: sqlite:state.db");

    String[] set = cli(yaml, "auth", "set", "crm", "--file", dir.resolve("token.txt").toString());
    String[] run = cli(yaml, "run", "--once");

    assertThat(set[0]).as(set[2]).isEqualTo("0");
    assertThat(run[0]).as(run[2]).isEqualTo("0");
    assertThat(bearer).containsExactly("Bearer at-1");
    assertThat(valid).as("the seed was never sent").containsExactly("rt-rotated-1");
    assertThat(Files.readString(dir.resolve("state.db"), StandardCharsets.ISO_8859_1))
        .doesNotContain("rt-set-by-operator", "rt-rotated-1", "at-1");
  }

  @Test
  void anUnsetSeedVariableIsFineOnceTheStoreHoldsTheRotatedToken() throws IOException {
    String yaml =
        yaml("secretKey: ${WATUKUY_SECRET_KEY}\n", "")
            .replace("store: memory", "store: sqlite:state.db");
    Map<String, String> withoutSeed = Map.of("WATUKUY_SECRET_KEY", KEY);

    String[] first = cli(yaml, "run", "--once");
    // `unset CRM_REFRESH_TOKEN; watukuy run`: the row holds rt-rotated-1, the seed is not needed.
    String[] second = cli(withoutSeed, yaml, "run", "--once");

    assertThat(first[0]).as(first[2]).isEqualTo("0");
    assertThat(second[0]).as(second[2]).isEqualTo("0");
    assertThat(bearer)
        .as("the second run reads the stored row (its access token still valid)")
        .containsExactly("Bearer at-1", "Bearer at-1");
    assertThat(valid).containsExactly("rt-rotated-1");
  }

  @Test
  void anUnsetSeedVariableWithAnEmptyStoreNamesTheVariableAndAuthSet() throws IOException {
    String[] r =
        cli(
            Map.of("WATUKUY_SECRET_KEY", KEY),
            yaml("secretKey: ${WATUKUY_SECRET_KEY}\n", ""),
            "run",
            "--once");

    assertThat(r[0]).isEqualTo("1");
    assertThat(r[2])
        .contains(
            "credential crm: no refresh token is stored and the seed cannot be read"
                + " (watukuy.yaml:9: auths.crm.refreshToken: environment variable"
                + " CRM_REFRESH_TOKEN is not set); provide it, or store one with `watukuy auth"
                + " set CONFIG crm`");
    assertThat(bearer).as("no request went out without a token").isEmpty();
  }

  @Test
  void validateWarnsAboutAnUnsetSeedVariableInsteadOfFailing() throws IOException {
    String[] r =
        cli(
            Map.of("WATUKUY_SECRET_KEY", KEY),
            yaml("secretKey: ${WATUKUY_SECRET_KEY}\n", ""),
            "validate");

    assertThat(r[0]).as(r[2]).isEqualTo("0");
    assertThat(r[2])
        .contains(
            "watukuy: warning: watukuy.yaml:9: auths.crm.refreshToken: environment variable"
                + " CRM_REFRESH_TOKEN is not set: fine while the store holds the credential's"
                + " row");
  }

  @Test
  void authSetRefusesAnUnknownNameAndAnAuthThatKeepsNothingInTheStore() throws IOException {
    Path token = dir.resolve("token.txt");
    Files.writeString(token, "rt-new\n");
    String yaml = yaml("secretKey: ${WATUKUY_SECRET_KEY}\n", "");

    String[] unknown = cli(yaml, "auth", "set", "erp", "--file", token.toString());
    String[] plain = cli(yaml, "auth", "set", "plain", "--file", token.toString());
    String[] noKey = cli(yaml("", ""), "auth", "set", "crm", "--file", token.toString());

    assertThat(unknown[0]).isEqualTo("2");
    assertThat(unknown[2]).contains("auth erp is not declared under auths (declared: crm, plain)");
    assertThat(plain[0]).isEqualTo("2");
    assertThat(plain[2]).contains("auth plain is not an oauth2 auth with grant: refreshToken");
    assertThat(noKey[0]).isEqualTo("2");
    assertThat(noKey[2]).contains("set a top-level secretKey");
  }

  @Test
  void authSetReadsTheTokenFromStandardInputAndPrintsNothingSecret() throws IOException {
    String yaml = yaml("secretKey: ${WATUKUY_SECRET_KEY}\n", "");
    InputStream stdin = System.in;
    String[] r;
    try {
      System.setIn(new ByteArrayInputStream("rt-from-stdin\n".getBytes(StandardCharsets.UTF_8)));
      r = cli(yaml, "auth", "set", "crm");
    } finally {
      System.setIn(stdin);
    }

    assertThat(r[0]).as(r[2]).isEqualTo("0");
    assertThat(r[2])
        .isEqualTo(
            "watukuy: auth crm: refresh token stored in memory (version 1, sealed under key"
                + " default)\n");
    assertThat(r[1] + r[2]).doesNotContain("rt-from-stdin");
  }
}
