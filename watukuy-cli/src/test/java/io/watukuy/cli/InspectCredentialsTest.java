package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.watukuy.TimeSource;
import io.watukuy.spi.StoredCredential;
import io.watukuy.store.sqlite.SqliteStore;
import io.watukuy.testing.VirtualClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code inspect} lists the credentials table (docs/operations.md, "Credentials"): per stored
 * credential its version, the key id it is sealed under, when it was written and its claim; a
 * {@code grant: refreshToken} auth with no row says how to store one; and neither the text nor the
 * JSON carries a sealed value or a token. A SQLite store, so the rows outlive each command; the
 * commands run on a {@link VirtualClock} ({@link Session#time}).
 */
class InspectCredentialsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String KEY = Base64.getEncoder().encodeToString(new byte[32]);
  private static final String TOKEN = "rt-secret-7f3e9a";
  private static final Instant T0 = Instant.parse("2026-03-02T09:00:00Z");

  @TempDir Path dir;
  private final VirtualClock clock = VirtualClock.at(T0);

  private final TimeSource before = Session.time;

  @BeforeEach
  void useTheVirtualClock() {
    Session.time = clock;
  }

  @AfterEach
  void restoreTheClock() {
    Session.time = before;
  }

  private Path config() throws IOException {
    return Files.writeString(
        dir.resolve("watukuy.yaml"),
        """
        store: sqlite:watukuy.db
        secretKey:
          - { id: k2, key: "${WATUKUY_SECRET_KEY}" }
        auths:
          crm:
            type: oauth2
            grant: refreshToken
            tokenUrl: http://127.0.0.1:9/token
            clientId: watukuy
          billing:
            type: oauth2
            grant: refreshToken
            tokenUrl: http://127.0.0.1:9/token
            clientId: watukuy
          plain: { type: bearer, token: abc }
        pollers:
          - name: orders
            auth: crm
            request: { url: "http://127.0.0.1:9/orders" }
            response: { items: "" }
            identity: /id
            cursor: { strategy: snapshotDiff }
        """);
  }

  private CliRun cli(String... args) {
    return CliRun.withEnv(Map.of("WATUKUY_SECRET_KEY", KEY), args);
  }

  @Test
  void inspectListsTheStoredCredentialsAndTheOnesNotStoredYetWithoutASecret() throws Exception {
    Path config = config();
    Path token = Files.writeString(dir.resolve("token.txt"), TOKEN + "\n");
    assertThat(cli("migrate", config.toString()).exit()).isZero();
    CliRun set = cli("auth", "set", config.toString(), "crm", "--file", token.toString());
    assertThat(set.exit()).as(set.stderr()).isZero();
    // A daemon's claim on the row, as the refresh protocol writes it.
    String sealed;
    Instant until = T0.plusSeconds(30);
    try (SqliteStore store = SqliteStore.open(dir.resolve("watukuy.db"))) {
      StoredCredential row = store.loadCredential("crm").orElseThrow();
      sealed = row.sealed();
      assertThat(store.compareAndSetCredential(1, row.next(sealed, "host-a:41", until, T0)))
          .isTrue();
    }
    clock.advance(Duration.ofSeconds(90));

    CliRun text = cli("inspect", config.toString());
    CliRun json = cli("inspect", config.toString(), "--json");

    assertThat(text.exit()).as(text.stderr()).isZero();
    assertThat(text.stdout())
        .containsPattern("CREDENTIAL +VERSION +KEY ID +UPDATED +CLAIM")
        .containsPattern("crm +2 +k2 +1m30s ago +host-a:41 until 2026-03-02T09:00:30Z \\(lapsed\\)")
        .containsPattern(
            "billing +- +- +- +not stored yet: run watukuy auth set "
                + java.util.regex.Pattern.quote(config.toString())
                + " billing")
        .doesNotContain("plain ");
    assertThat(json.exit()).as(json.stderr()).isZero();
    JsonNode credentials = JSON.readTree(json.stdout()).get("credentials");
    assertThat(credentials.toString())
        .isEqualTo(
            "[{\"name\":\"crm\",\"stored\":true,\"version\":2,\"keyId\":\"k2\","
                + "\"updatedAt\":\"2026-03-02T09:00:00Z\","
                + "\"claim\":{\"owner\":\"host-a:41\",\"until\":\"2026-03-02T09:00:30Z\"}},"
                + "{\"name\":\"billing\",\"stored\":false,\"problem\":\"not stored yet: run"
                + " watukuy auth set "
                + config.toString().replace("\\", "\\\\")
                + " billing\"}]");
    String secretPart = sealed.substring(sealed.lastIndexOf(':') + 1);
    for (CliRun r : new CliRun[] {set, text, json})
      assertThat(r.stdout() + r.stderr())
          .doesNotContain(TOKEN)
          .doesNotContain(secretPart)
          .doesNotContain(KEY);
  }

  @Test
  void inspectOfTheStoreAloneListsTheRowsAndAnEmptyStoreNone() throws Exception {
    Path config = config();
    assertThat(cli("migrate", config.toString()).exit()).isZero();
    // --store shows the pollers with state in the store: give the one poller some.
    assertThat(cli("pause", config.toString(), "orders").exit()).isZero();
    String store = "sqlite:" + dir.resolve("watukuy.db");

    CliRun empty = cli("inspect", "--store", store, "--json");
    Files.writeString(dir.resolve("token.txt"), TOKEN);
    cli("auth", "set", config.toString(), "crm", "--file", dir.resolve("token.txt").toString());
    CliRun one = cli("inspect", "--store", store);

    assertThat(empty.exit()).as(empty.stderr()).isZero();
    assertThat(JSON.readTree(empty.stdout()).get("credentials").toString()).isEqualTo("[]");
    assertThat(one.exit()).as(one.stderr()).isZero();
    assertThat(one.stdout())
        .containsPattern("crm +1 +k2 +0ms ago +-")
        .doesNotContain("billing")
        .doesNotContain(TOKEN);
  }
}
