package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code auth:} and {@code auths:} in YAML (issue 19, section 1; docs/config.md, "auth"): the
 * mistakes {@code validate} catches with FILE:LINE and exit 2, credentials from {@code ${ENV}} and
 * {@code ${file:PATH}} (trimmed) on the wire, and never in what the command prints.
 */
class AuthConfigTest {
  private static final String TOKEN = "t0k-from-a-file-42";
  private static final String API_KEY = "k-abcdef123";
  private static final String HMAC_SECRET = "hm4c-secret-value";

  @TempDir Path dir;
  private HttpServer server;
  private final List<String> seen = new CopyOnWriteArrayList<>();
  private volatile int status = 200;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        ex -> {
          String auth = ex.getRequestHeaders().getFirst("Authorization");
          String sig = ex.getRequestHeaders().getFirst("X-Signature");
          seen.add(ex.getRequestURI().getRawQuery() + " | " + auth + " | " + sig);
          // A vendor that echoes what it was sent, as error pages do.
          byte[] body =
              (status == 200
                      ? "[{\"id\":1}]"
                      : "{\"error\":\"bad " + auth + " " + ex.getRequestURI() + "\"}")
                  .getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(status, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/orders";
  }

  private String poller(String name, String auth) {
    return """
          - name: %s
            auth: %s
            request:
              url: %s
              query: { limit: 5 }
            response: { items: "" }
            identity: /id
            cursor: { strategy: snapshotDiff }
        """
        .formatted(name, auth, url());
  }

  private String[] cli(String yaml, String... args) throws IOException {
    Path file = dir.resolve("watukuy.yaml");
    Files.writeString(file, yaml);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    String[] argv = new String[args.length + 2];
    argv[0] = args[0];
    argv[1] = file.toString();
    System.arraycopy(args, 1, argv, 2, args.length - 1);
    int code =
        Main.run(
            java.util.Arrays.copyOf(argv, args.length + 1),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.of("HMAC_SECRET", HMAC_SECRET)::get);
    return new String[] {
      String.valueOf(code),
      out.toString(StandardCharsets.UTF_8),
      err.toString(StandardCharsets.UTF_8).replace(file.toString(), "watukuy.yaml")
    };
  }

  /** Standard error of {@code validate} on {@code yaml}, which must exit 2 (a config error). */
  private String configError(String yaml) throws IOException {
    String[] r = cli(yaml, "validate");
    assertThat(r[0]).as(r[2]).isEqualTo("2");
    return r[2];
  }

  @Test
  void oauth2WithoutATokenUrlIsAConfigErrorAtItsLine() throws IOException {
    String yaml =
        "store: memory\n"
            + "auths:\n"
            + "  erp:\n"
            + "    type: oauth2\n"
            + "    clientId: watukuy\n"
            + "    clientSecret: s\n"
            + "pollers:\n"
            + poller("orders", "erp");

    assertThat(configError(yaml))
        .isEqualTo(
            "watukuy: watukuy.yaml:3: auths.erp: tokenUrl: missing (the token endpoint, e.g."
                + " https://login.example.com/oauth2/token)\n");
  }

  @Test
  void anUnknownAuthNameIsAConfigErrorNamingTheDeclaredOnes() throws IOException {
    String yaml =
        "store: memory\n"
            + "auths:\n"
            + "  erp: { type: bearer, token: abc }\n"
            + "pollers:\n"
            + poller("orders", "crm");

    assertThat(configError(yaml))
        .isEqualTo(
            "watukuy: watukuy.yaml:6: poller orders: auth: 'crm' is not declared under auths"
                + " (declared: erp)\n");
  }

  @Test
  void anUnknownTypeIsAConfigErrorListingTheTypes() throws IOException {
    String yaml = "store: memory\npollers:\n" + poller("orders", "{ type: digest, token: x }");

    assertThat(configError(yaml))
        .isEqualTo(
            "watukuy: watukuy.yaml:4: poller orders: auth.type: 'digest' is not one of bearer,"
                + " basic, apiKey, oauth2, hmac, jwtBearer\n");
  }

  @Test
  void anOriginWithATemplateVariableIsAConfigError() throws IOException {
    String yaml =
        "store: memory\npollers:\n"
            + poller("orders", "{ type: bearer, token: abc }")
                .replace(url(), "http://{{partition}}.example.com/orders")
                .replace("    auth:", "    partitions: [eu]\n    auth:");

    assertThat(configError(yaml))
        .isEqualTo(
            "watukuy: watukuy.yaml:7: poller orders: request.url: with auth: the scheme, host and"
                + " port must not use {{variables}}: they name the one origin the credentials are"
                + " sent to\n");
  }

  @Test
  void aBearerTokenFromAFileIsTrimmedSentAndHiddenInErrorsAndInspect() throws IOException {
    Files.writeString(dir.resolve("token.txt"), "  " + TOKEN + "\n\n");
    String yaml =
        "store: sqlite:state.db\n"
            + "auths:\n"
            + "  erp: { type: bearer, token: \"${file:token.txt}\" }\n"
            + "pollers:\n"
            + poller("orders", "erp");

    String[] ok = cli(yaml, "run", "--once");
    status = 500;
    String[] failed = cli(yaml, "run", "--once");
    String[] inspect = cli(yaml, "inspect", "--json");

    assertThat(ok[0]).as(ok[2]).isEqualTo("0");
    assertThat(seen.get(0)).isEqualTo("limit=5 | Bearer " + TOKEN + " | null");
    assertThat(failed[0]).isEqualTo("1");
    assertThat(failed[2]).contains("500");
    assertThat(inspect[1]).contains("500");
    for (String[] r : List.of(ok, failed, inspect)) {
      assertThat(r[1] + r[2]).doesNotContain(TOKEN);
    }
  }

  @Test
  void anApiKeyInTheQueryGoesOutAndItsValueIsHiddenWhateverTheParameterIsCalled()
      throws IOException {
    status = 500;
    String yaml =
        "store: sqlite:state.db\npollers:\n"
            + poller("orders", "{ type: apiKey, in: query, name: sigil, value: " + API_KEY + " }");

    String[] failed = cli(yaml, "run", "--once");
    String[] inspect = cli(yaml, "inspect", "--json");

    assertThat(seen.get(0)).isEqualTo("limit=5&sigil=" + API_KEY + " | null | null");
    assertThat(failed[0]).isEqualTo("1");
    assertThat(failed[2]).contains("sigil=[redacted]");
    for (String[] r : List.of(failed, inspect)) {
      assertThat(r[1] + r[2]).doesNotContain(API_KEY);
    }
  }

  @Test
  void theHmacSignerSignsTheCanonicalStringWithTheSecretFromTheEnvironment() throws IOException {
    String yaml =
        "store: memory\npollers:\n"
            + poller(
                "orders",
                "{ type: hmac, header: X-Signature, secret: \"${HMAC_SECRET}\","
                    + " template: \"{{method}}\\n{{path}}\\n{{query}}\" }");

    String[] r = cli(yaml, "run", "--once");

    assertThat(r[0]).as(r[2]).isEqualTo("0");
    // printf 'GET\n/orders\nlimit=5' | openssl dgst -sha256 -hmac hm4c-secret-value
    assertThat(seen.get(0))
        .isEqualTo(
            "limit=5 | null | b2dfc8c1210cadd562b5cf41537b382f5aac14048411ba49a5d426a47b4bc328");
  }

  @Test
  void aOneLetterPasswordLeavesMessagesReadableOnStderrAndInTheStore() throws IOException {
    // A new user's report: basic auth with password "e" on a URL that returns 500 garbled every
    // message ("poll[r[redacted]dact[redacted]d]r") and stored the garbled text.
    status = 500;
    String yaml =
        "store: sqlite:state.db\npollers:\n"
            + poller("short2", "{ type: basic, user: u, password: \"e\" }");

    String[] failed = cli(yaml, "run", "--once");
    String[] inspect = cli(yaml, "inspect");

    assertThat(failed[0]).isEqualTo("1");
    assertThat(failed[2])
        .contains("watukuy: new store sqlite:")
        .contains("watukuy: poller short2: GET " + url() + "?limit=5 returned HTTP 500: ");
    // LAST ERROR comes from the store.
    assertThat(inspect[1])
        .contains("FetchException: poller short2 page 1: GET " + url() + "?limit=5 returned");
    for (String[] r : List.of(failed, inspect)) {
      assertThat(r[1] + r[2]).doesNotContain("[r[").doesNotContain("dact[").doesNotContain("d]r");
    }
  }

  @Test
  void aOneLetterClientSecretLeavesAConfigErrorReadable() throws IOException {
    String yaml =
        "store: memory\n"
            + "auths:\n"
            + "  erp:\n"
            + "    type: oauth2\n"
            + "    tokenUrl: https://login.example.com/oauth2/token\n"
            + "    clientId: watukuy\n"
            + "    clientSecret: e\n"
            + "pollers:\n"
            + poller("orders", "crm");

    assertThat(configError(yaml))
        .isEqualTo(
            "watukuy: watukuy.yaml:10: poller orders: auth: 'crm' is not declared under auths"
                + " (declared: erp)\n");
  }
}
