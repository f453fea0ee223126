package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code inspect} and the sinks (docs/sinks.md, "Configuration"; docs/operations.md, "Health"): it
 * runs without the sinks' secrets, since it makes no sink; it shows each poller's sink, redacted,
 * with the events parked on it and the last delivery error; and a key whose events a sink refuses
 * shows that refusal as its last error until events are delivered again.
 */
class InspectSinksTest {
  @TempDir Path dir;
  private JsonServer vendor;

  @BeforeEach
  void start() throws IOException {
    vendor = new JsonServer().answer("[{\"id\":1},{\"id\":2}]");
  }

  @AfterEach
  void stop() {
    vendor.close();
  }

  private String write(String yaml) throws IOException {
    return Files.writeString(dir.resolve("watukuy.yaml"), yaml).toString();
  }

  private String poller(String name, String extra) {
    return """
          - name: %s
            request: { url: "%s" }
            response: { items: "" }
            identity: /id
            cursor: { strategy: snapshotDiff }
        %s
        """
        .formatted(name, vendor.url("/" + name), extra);
  }

  /** The lines after the keys' table: the sinks' header and rows. */
  private static List<String> sinkLines(String stdout) {
    List<String> lines = stdout.lines().toList();
    return lines.subList(lines.indexOf("") + 1, lines.size());
  }

  @Test
  void inspectNeedsNoSinkSecretAndShowsEachPollersSinkRedacted() throws IOException {
    String config =
        write(
            "store: sqlite:state.db\n"
                + "pollers:\n"
                + poller(
                    "orders",
                    "    sink: { type: kafka, bootstrap: \"127.0.0.1:9\", topic: orders,"
                        + " properties: { sasl.jaas.config: \"${KAFKA_JAAS}\" } }")
                + poller(
                    "refunds",
                    "    sink: { type: webhook, url:"
                        + " \"https://hook:pa55word@hooks.example/in?token=t0ken-value&x=1\","
                        + " secret: \"${file:webhook.key}\" }")
                + poller(
                    "stock",
                    "    sink: { type: table, url:"
                        + " \"jdbc:postgresql://db:5432/shop?user=app&password=${DB_PASSWORD}\","
                        + " table: stock_changes, columns: { k: deliveryKey } }")
                + poller("misc", ""));
    // The store exists (migrate makes no sink either); no variable set, no key file.
    CliRun migrate = CliRun.of("migrate", config);
    assertThat(migrate.exit()).as(migrate.stderr()).isZero();

    CliRun inspect = CliRun.of("inspect", config);

    assertThat(inspect.exit()).as(inspect.stderr()).isZero();
    List<String> sinks = sinkLines(inspect.stdout());
    assertThat(sinks.get(0)).startsWith("POLLER").contains("SINK").endsWith("LAST DELIVERY ERROR");
    assertThat(sinks.subList(1, sinks.size()))
        .hasSize(4)
        .satisfiesExactly(
            l -> assertThat(l).matches("orders +kafka topic=orders bootstrap=127.0.0.1:9 +0 +-"),
            l ->
                assertThat(l)
                    .matches(
                        "refunds +webhook url=https://hook:\\*\\*\\*@hooks.example/in\\?token=\\*\\*\\*&x=1"
                            + " +0 +-"),
            l ->
                assertThat(l)
                    .matches(
                        "stock +table table=stock_changes"
                            + " url=jdbc:postgresql://db:5432/shop\\?user=app&password=\\*\\*\\* +0 +-"),
            l -> assertThat(l).matches("misc +stdout +0 +-"));
    assertThat(inspect.stdout()).doesNotContain("pa55word", "t0ken-value");
    // run and validate make the sinks: they still need the secrets.
    CliRun validate = CliRun.of("validate", config);
    assertThat(validate.exit()).isEqualTo(Main.USAGE);
    assertThat(validate.stderr()).contains("environment variable KAFKA_JAAS is not set");
  }

  @Test
  void aRefusedEventIsTheKeysLastErrorUntilEventsAreDeliveredAgain() throws IOException {
    String probe = "inspect-refuse-" + System.nanoTime();
    String refusing =
        "store: sqlite:state.db\n"
            + "sink: { type: probe, id: "
            + probe
            + ", refuse: true, secret: \"${SINK_KEY}\" }\n"
            + "pollers:\n"
            + poller("orders", "    delivery: { retry: { attempts: 5, base: 1ms, max: 1ms } }");
    String config = write(refusing);
    Map<String, String> env = Map.of("SINK_KEY", "s1nk-k3y-value");

    CliRun run = CliRun.withEnv(env, "run", config, "--once");
    assertThat(run.exit()).isEqualTo(Main.FAILED);
    CliRun inspect = CliRun.withEnv(env, "inspect", config);

    assertThat(inspect.exit()).as(inspect.stderr()).isZero();
    String keyRow = inspect.stdout().lines().toList().get(1);
    assertThat(keyRow)
        .containsPattern(
            "ago: DeliveryFailure: event [0-9a-f]{64} \\(sequence 1\\) attempt 1 failed, retried at"
                + " [0-9T:.-]+Z: probe refused it: \\[redacted\\]$")
        .doesNotContain("succeeded since");
    assertThat(sinkLines(inspect.stdout()).get(1))
        .matches(
            "orders +probe +0 +[0-9.]+(ms|s) ago: DeliveryFailure: event [0-9a-f]{64} \\(sequence"
                + " 1\\) attempt 1 failed, .*: probe refused it: \\[redacted\\]");
    JsonNode json =
        new ObjectMapper().readTree(CliRun.withEnv(env, "inspect", config, "--json").stdout());
    assertThat(json.at("/pollers/0/lastError/name").asText()).isEqualTo("DeliveryFailure");
    assertThat(json.at("/sinks/0/lastDeliveryError/name").asText()).isEqualTo("DeliveryFailure");
    assertThat(json.at("/sinks/0/sink").asText()).isEqualTo("probe");
    assertThat(json.toString()).doesNotContain("s1nk-k3y-value");

    // The sink takes the events again: the next run delivers them and the error is cleared.
    write(refusing.replace("refuse: true", "refuse: false"));
    CliRun again = CliRun.withEnv(env, "run", config, "--once");
    assertThat(again.exit()).as(again.stderr()).isZero();
    CliRun after = CliRun.withEnv(env, "inspect", config);

    assertThat(after.stdout().lines().toList().get(1)).endsWith(" -");
    assertThat(sinkLines(after.stdout()).get(1)).matches("orders +probe +0 +-");
    assertThat(
            new ObjectMapper()
                .readTree(CliRun.withEnv(env, "inspect", config, "--json").stdout())
                .at("/pollers/0/lastError")
                .isNull())
        .isTrue();
  }

  @Test
  void aParkedEventCountsOnItsSinkAndNamesTheParkAsTheLastDeliveryError() throws IOException {
    String probe = "inspect-park-" + System.nanoTime();
    String config =
        write(
            "store: sqlite:state.db\n"
                + "pollers:\n"
                + poller(
                    "orders",
                    "    sink: { type: probe, id: "
                        + probe
                        + ", refuse: true }\n"
                        + "    delivery: { retry: { attempts: 1 } }"));

    CliRun run = CliRun.of("run", config, "--once");
    assertThat(run.exit()).isEqualTo(Main.FAILED);
    CliRun inspect = CliRun.of("inspect", config);

    // The probe refuses the first event of each batch: with one attempt, parked at once.
    assertThat(sinkLines(inspect.stdout()).get(1))
        .matches(
            "orders +probe +1 +[0-9.]+(ms|s) ago: DeliveryFailure: event [0-9a-f]{64} \\(sequence"
                + " 1\\) parked after 1 attempts: probe refused it: null");
  }
}
