package io.watukuy.examples.ndjsonexport;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.examples.support.FileServer;
import io.watukuy.examples.support.Peers;
import io.watukuy.examples.support.WatukuyCli;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed {@code watukuy.yaml} against {@link FileServer} on a loopback port, serving a copy
 * of the committed {@code customers.ndjson} (four customers, one a line, gzip'd on the wire). The
 * expected events follow from the seed and the edits each test makes.
 */
class NdjsonExportExampleTest {
  private static final Path EXAMPLE = Peers.repositoryRoot().resolve("examples/ndjson-export");

  /**
   * What the vendor serves: the bulk export of a CRM: {@code customers.ndjson} as it is on disk,
   * with no charset parameter (NDJSON is UTF-8 by definition, as JSON is), gzip'd when asked.
   */
  private static final FileServer.Endpoint EXPORT =
      new FileServer.Endpoint(
          "/api/v1/exports/customers",
          "customers.ndjson",
          "application/x-ndjson",
          FileServer.Coding.GZIP);

  @TempDir Path dir;
  private FileServer server;
  private Path config;

  @BeforeEach
  void start() throws IOException {
    Files.copy(EXAMPLE.resolve("customers.ndjson"), dir.resolve("customers.ndjson"));
    server = FileServer.start(dir, 0, EXPORT);
    config =
        WatukuyCli.config(
            EXAMPLE.resolve("watukuy.yaml"),
            dir,
            Map.of("127.0.0.1:3992", server.url().substring("http://".length())));
  }

  @AfterEach
  void stop() {
    if (server != null) server.close();
  }

  @Test
  void eachLineIsAnItemReadGzippedWithTheFormatChosenByContentType() {
    WatukuyCli.Result first = run();

    assertThat(first.changes())
        .containsExactly(
            "created cus_1001", "created cus_1002", "created cus_1003", "created cus_1004");
    assertThat(server.log()).containsExactly("GET /api/v1/exports/customers gzip");
    JsonNode mei = first.events().get(2).get("data");
    assertThat(mei.get("seats").isIntegralNumber()).isTrue();
    assertThat(mei.get("seats").intValue()).isEqualTo(12);
    assertThat(mei.get("address").get("city").textValue()).isEqualTo("Ōsaka");
    assertThat(mei.get("tags")).hasSize(2);
    assertThat(first.events().get(1).get("data").get("address").get("city").textValue())
        .isEqualTo("Malmö");
  }

  @Test
  void anEditedLineIsUpdatedARemovedOneDeletedAndAThirdRunIsSilent() throws IOException {
    run();
    String ndjson = read();
    ndjson = ndjson.replace("\"plan\":\"starter\",\"seats\":1,", "\"plan\":\"pro\",\"seats\":3,");
    ndjson = ndjson.replaceFirst("\\{\"id\":\"cus_1003\"[^\\n]*\\n", "");
    write(ndjson);

    WatukuyCli.Result second = run();
    assertThat(second.changes()).containsExactly("updated cus_1002", "deleted cus_1003");
    assertThat(second.events().get(0).get("data").get("plan").textValue()).isEqualTo("pro");
    assertThat(run().changes()).isEmpty();
  }

  @Test
  void aLineThatIsNotOneJsonValueFailsTheCycleNamingItsLineAndEmitsNothing() throws IOException {
    run();
    String seed = read();
    // An export cut off mid-line, as a proxy's timeout leaves it, with an edit before the cut.
    String cut = seed.replace("\"seats\":5,", "\"seats\":6,");
    cut = cut.substring(0, cut.indexOf("\"address\":{\"city\":\"Ōsaka\""));
    write(cut);

    WatukuyCli.Result broken = WatukuyCli.run("run", config.toString(), "--once");

    assertThat(broken.exit()).isEqualTo(1);
    assertThat(broken.changes()).isEmpty();
    assertThat(broken.stderr())
        .contains("poller customers: GET " + server.url() + "/api/v1/exports/customers (HTTP 200")
        .contains("the body is not valid NDJSON: line 3 is not one JSON value");

    // The failed cycle stored nothing: with the seed back, the next run has nothing to say.
    write(seed);
    assertThat(run().changes()).isEmpty();
  }

  private String read() throws IOException {
    return Files.readString(dir.resolve("customers.ndjson"), StandardCharsets.UTF_8);
  }

  private void write(String ndjson) throws IOException {
    Files.writeString(dir.resolve("customers.ndjson"), ndjson, StandardCharsets.UTF_8);
  }

  /** {@code watukuy run CONFIG --once}: exit 0 and nothing wrong on stderr. */
  private WatukuyCli.Result run() {
    WatukuyCli.Result r = WatukuyCli.run("run", config.toString(), "--once");
    assertThat(r.exit()).as("exit code; stderr:\n%s", r.stderr()).isZero();
    assertThat(r.stderr().lines().filter(l -> l.matches("(?i).*\\b(error|warn|exception)\\b.*")))
        .as("problems on stderr")
        .isEmpty();
    return r;
  }
}
