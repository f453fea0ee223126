package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code response.format} (docs/config.md, "response.format"): a YAML poller per format against a
 * JDK HTTP server on 127.0.0.1 that sends its pages compressed, as export endpoints do; and the
 * config errors {@code validate} reports.
 */
class ResponseFormatsTest {

  /** A page the server sends: its body text, Content-Type, charset and Content-Encoding. */
  record Page(String text, String contentType, Charset charset, String coding) {}

  @TempDir Path dir;

  private final Map<String, Page> pages = new ConcurrentHashMap<>();
  private HttpServer server;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          try (exchange) {
            Page p = pages.get(exchange.getRequestURI().getPath());
            if (p == null) {
              exchange.sendResponseHeaders(404, -1);
              return;
            }
            String accepted = exchange.getRequestHeaders().getFirst("Accept-Encoding");
            byte[] body = encode(p.text().getBytes(p.charset()), p.coding());
            exchange.getResponseHeaders().add("Content-Type", p.contentType());
            // The server compresses only when asked, as real ones do.
            if (!p.coding().isEmpty() && accepted != null && accepted.contains(p.coding())) {
              exchange.getResponseHeaders().add("Content-Encoding", p.coding());
            } else {
              body = p.text().getBytes(p.charset());
            }
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(body);
            }
          }
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private String origin() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private static byte[] encode(byte[] plain, String coding) throws IOException {
    if (coding.isEmpty()) return plain;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (OutputStream z =
        coding.equals("gzip") ? new GZIPOutputStream(out) : new DeflaterOutputStream(out)) {
      z.write(plain);
    }
    return out.toByteArray();
  }

  private Path config(String path, String response, String identity) throws IOException {
    Path file = dir.resolve("watukuy.yaml");
    Files.writeString(
        file,
        """
        store: sqlite:watukuy.db
        pollers:
          - name: feed
            request: { url: %s%s }
            response: %s
            identity: %s
            cursor: { strategy: snapshotDiff }
        """
            .formatted(origin(), path, response, identity));
    return file;
  }

  /** The events' items, in output order. */
  private static List<JsonNode> items(CliRun run) {
    ObjectMapper json = new ObjectMapper();
    return run.stdout()
        .lines()
        .filter(l -> !l.isBlank())
        .map(
            l -> {
              try {
                JsonNode e = json.readTree(l);
                return e.has("data") ? e.get("data") : e.get("item");
              } catch (IOException e) {
                throw new IllegalStateException(e);
              }
            })
        .toList();
  }

  @Test
  void aGzippedCsvExportInWindows1252WithTypedColumns() throws IOException {
    String csv =
        "sku;name;qty;price;active\r\n"
            + "A-1;\"Crème; fraîche\";12;2.50;true\r\n"
            + "B-7;\"Bière\r\nblonde\";0;€ n/a;FALSE\r\n";
    pages.put(
        "/stock.csv",
        new Page(
            csv.replace("€ n/a", "1.99"),
            "text/csv; charset=windows-1252",
            Charset.forName("windows-1252"),
            "gzip"));
    Path file =
        config(
            "/stock.csv",
            "{ format: csv, csv: { separator: \";\", columns: { qty: integer, price: number,"
                + " active: boolean } }, items: \"\" }",
            "/sku");

    CliRun first = CliRun.of("run", file.toString(), "--once");

    assertThat(first.exit()).as(first.stderr()).isZero();
    assertThat(first.changes()).containsExactly("created A-1", "created B-7");
    JsonNode a = items(first).get(0);
    assertThat(a.get("name").textValue()).isEqualTo("Crème; fraîche");
    assertThat(a.get("qty").isIntegralNumber()).isTrue();
    assertThat(a.get("price").doubleValue()).isEqualTo(2.5);
    assertThat(items(first).get(1).get("name").textValue()).isEqualTo("Bière\r\nblonde");
    assertThat(items(first).get(1).get("active").booleanValue()).isFalse();

    pages.put(
        "/stock.csv",
        new Page(csv, "text/csv; charset=windows-1252", Charset.forName("windows-1252"), "gzip"));
    CliRun bad = CliRun.of("run", file.toString(), "--once");

    assertThat(bad.exit()).isNotZero();
    assertThat(bad.stderr())
        .contains("poller feed")
        .contains("the body is not valid CSV: row 2, column 'price': '€ n/a' is not a number");
  }

  @Test
  void anXmlFeedOfOneOrderIsAListOfOneByContentType() throws IOException {
    String one =
        "<?xml version=\"1.0\"?>\n<orders xmlns=\"urn:shop\"><order id=\"1001\" status=\"paid\">"
            + "<total currency=\"EUR\">12.50</total></order></orders>";
    pages.put("/orders.xml", new Page(one, "application/xml", StandardCharsets.UTF_8, "gzip"));
    Path file = config("/orders.xml", "{ items: /orders/order }", "/id");

    CliRun first = CliRun.of("run", file.toString(), "--once");

    assertThat(first.exit()).as(first.stderr()).isZero();
    assertThat(first.changes()).containsExactly("created 1001");
    assertThat(items(first).get(0).at("/total/currency").textValue()).isEqualTo("EUR");

    String two =
        one.replace(
            "</orders>", "<order id=\"1002\" status=\"open\"><total>7</total></order></orders>");
    pages.put("/orders.xml", new Page(two, "text/xml", StandardCharsets.UTF_8, "deflate"));
    CliRun second = CliRun.of("run", file.toString(), "--once");

    assertThat(second.exit()).as(second.stderr()).isZero();
    assertThat(second.changes()).containsExactly("created 1002");
  }

  @Test
  void anNdjsonExportWithATrailingBlankLineDeflated() throws IOException {
    String lines = "{\"id\":\"e-1\",\"kind\":\"signup\"}\n{\"id\":\"e-2\",\"kind\":\"login\"}\n\n";
    pages.put(
        "/events", new Page(lines, "application/x-ndjson", StandardCharsets.UTF_8, "deflate"));
    Path file = config("/events", "{ items: \"\" }", "/id");

    CliRun run = CliRun.of("run", file.toString(), "--once");

    assertThat(run.exit()).as(run.stderr()).isZero();
    assertThat(run.changes()).containsExactly("created e-1", "created e-2");
  }

  @Test
  void aBadNdjsonLineFailsTheCycleNamingTheLine() throws IOException {
    pages.put(
        "/events",
        new Page(
            "{\"id\":\"e-1\"}\n{\"id\":\"e-2\",}\n",
            "application/jsonl",
            StandardCharsets.UTF_8,
            "gzip"));
    Path file = config("/events", "{ items: \"\" }", "/id");

    CliRun run = CliRun.of("run", file.toString(), "--once");

    assertThat(run.exit()).isNotZero();
    assertThat(run.stderr()).contains("the body is not valid NDJSON: line 2 is not one JSON value");
  }

  @Test
  void aJsonBodyInTheLatin1ItsContentTypeNamesReadsAsText() throws IOException {
    // A user's report: "Café" in ISO-8859-1 (one byte 0xE9) used to fail as a binary body.
    pages.put(
        "/latin1",
        new Page(
            "{\"items\":[{\"id\":\"Café\"}]}",
            "application/json; charset=ISO-8859-1",
            StandardCharsets.ISO_8859_1,
            ""));
    Path file = config("/latin1", "{ items: /items }", "/id");

    CliRun run = CliRun.of("run", file.toString(), "--once");

    assertThat(run.exit()).as(run.stderr()).isZero();
    assertThat(run.changes()).containsExactly("created Café");
    assertThat(items(run).get(0).get("id").textValue()).isEqualTo("Café");
  }

  @Test
  void aCharsetNobodyKnowsIsAFetchErrorNamingIt() throws IOException {
    pages.put(
        "/nope",
        new Page(
            "{\"items\":[{\"id\":\"x\"}]}",
            "application/json; charset=x-nope",
            StandardCharsets.UTF_8,
            ""));
    Path file = config("/nope", "{ items: /items }", "/id");

    CliRun run = CliRun.of("run", file.toString(), "--once");

    assertThat(run.exit()).isNotZero();
    assertThat(run.stderr()).contains("poller feed").contains("x-nope");
    assertThat(run.changes()).isEmpty();
  }

  @Test
  void aCsvBodyWithoutFormatIsChosenByTextCsv() throws IOException {
    pages.put(
        "/plain.csv", new Page("sku,qty\nA-1,3\nB-2,4\n", "text/csv", StandardCharsets.UTF_8, ""));
    Path file = config("/plain.csv", "{ items: \"\" }", "/sku");

    CliRun run = CliRun.of("run", file.toString(), "--once");

    assertThat(run.exit()).as(run.stderr()).isZero();
    assertThat(run.changes()).containsExactly("created A-1", "created B-2");
  }

  @Test
  void validateRefusesAnUnknownFormatAndCsvOptionsWithoutCsv() throws IOException {
    Path file = config("/x", "{ format: yaml, items: \"\" }", "/id");
    CliRun unknown = CliRun.of("validate", file.toString());
    assertThat(unknown.exit()).isEqualTo(2);
    assertThat(unknown.stderr())
        .isEqualTo(
            "watukuy: "
                + file
                + ":5: poller feed: response.format: 'yaml' is not a body format (expected one"
                + " of json, ndjson, csv, xml)\n");

    file = config("/x", "{ csv: { separator: \";\" }, items: \"\" }", "/id");
    CliRun csvAlone = CliRun.of("validate", file.toString());
    assertThat(csvAlone.exit()).isEqualTo(2);
    assertThat(csvAlone.stderr()).contains(":5: poller feed: response.csv: only with format: csv");

    file = config("/x", "{ format: csv, csv: { columns: { qty: date } }, items: \"\" }", "/id");
    CliRun badType = CliRun.of("validate", file.toString());
    assertThat(badType.stderr())
        .contains(
            "response.csv.columns.qty: 'date' is not a column type; use string, integer, number"
                + " or boolean");

    file = config("/x", "{ format: xml, items: /orders/order }", "/id");
    assertThat(CliRun.of("validate", file.toString()).exit()).isZero();
  }
}
