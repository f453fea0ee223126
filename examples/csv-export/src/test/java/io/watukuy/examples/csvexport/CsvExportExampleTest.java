package io.watukuy.examples.csvexport;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.examples.support.FileServer;
import io.watukuy.examples.support.Peers;
import io.watukuy.examples.support.WatukuyCli;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed {@code watukuy.yaml} against {@link FileServer} on a loopback port, serving a copy
 * of the committed {@code stock.csv} (four articles, windows-1252, gzip'd on the wire). The
 * expected events follow from the seed and the edits each test makes.
 */
class CsvExportExampleTest {
  private static final Path EXAMPLE = Peers.repositoryRoot().resolve("examples/csv-export");

  /**
   * What the vendor serves: the export of an ERP: {@code stock.csv} as it is on disk, gzip'd when
   * asked.
   */
  private static final FileServer.Endpoint EXPORT =
      new FileServer.Endpoint(
          "/export/stock.csv",
          "stock.csv",
          "text/csv; charset=windows-1252",
          FileServer.Coding.GZIP);

  private static final Charset CP1252 = Charset.forName("windows-1252");

  @TempDir Path dir;
  private FileServer server;
  private Path config;

  @BeforeEach
  void start() throws IOException {
    Files.copy(EXAMPLE.resolve("stock.csv"), dir.resolve("stock.csv"));
    server = FileServer.start(dir, 0, EXPORT);
    config =
        WatukuyCli.config(
            EXAMPLE.resolve("watukuy.yaml"),
            dir,
            Map.of("127.0.0.1:3998", server.url().substring("http://".length())));
  }

  @AfterEach
  void stop() {
    if (server != null) server.close();
  }

  @Test
  void theExportIsReadGzippedInItsCharsetWithTypedColumns() {
    WatukuyCli.Result first = run();

    assertThat(first.changes())
        .containsExactly("created A-100", "created A-101", "created B-200", "created C-300");
    assertThat(server.log()).containsExactly("GET /export/stock.csv gzip");
    JsonNode beer = first.events().get(1).get("data");
    assertThat(beer.get("name").textValue()).isEqualTo("Bière blonde; 6 × 33 cl");
    assertThat(beer.get("qty").isIntegralNumber()).isTrue();
    assertThat(beer.get("qty").intValue()).isEqualTo(12);
    assertThat(beer.get("price").doubleValue()).isEqualTo(7.49);
    assertThat(first.events().get(2).get("data").get("name").textValue())
        .isEqualTo("Pâté \"maison\"");
    assertThat(first.events().get(3).get("data").get("name").textValue())
        .isEqualTo("Café en grains\r\n(1 kg)");
    assertThat(first.events().get(3).get("data").get("active").booleanValue()).isTrue();
  }

  @Test
  void anEditedRowIsUpdatedARemovedOneDeletedAndAThirdRunIsSilent() throws IOException {
    run();
    String csv = Files.readString(dir.resolve("stock.csv"), CP1252);
    csv = csv.replace("A-100;Crème fraîche 200 g;24;", "A-100;Crème fraîche 200 g;23;");
    csv = csv.replaceFirst("B-200;[^\\r]*\\r\\n", "");
    Files.writeString(dir.resolve("stock.csv"), csv, CP1252);

    assertThat(run().changes()).containsExactly("updated A-100", "deleted B-200");
    assertThat(run().changes()).isEmpty();
  }

  @Test
  void aValueThatDoesNotFitItsColumnFailsTheCycleNamingRowAndColumn() throws IOException {
    String csv = Files.readString(dir.resolve("stock.csv"), CP1252);
    Files.writeString(dir.resolve("stock.csv"), csv.replace(";12;7.49;", ";n/a;7.49;"), CP1252);

    WatukuyCli.Result r = WatukuyCli.run("run", config.toString(), "--once");

    assertThat(r.exit()).isNotZero();
    assertThat(r.changes()).isEmpty();
    assertThat(r.stderr()).contains("row 2, column 'qty': 'n/a' is not an integer");
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
