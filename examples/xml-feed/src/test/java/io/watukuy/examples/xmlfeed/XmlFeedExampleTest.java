package io.watukuy.examples.xmlfeed;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
 * The committed {@code watukuy.yaml} against {@link FileServer} on a loopback port, serving copies
 * of the committed {@code feed/products-1.xml} (three products) and {@code feed/products-2.xml}
 * (one product: a page of one), deflate'd on the wire. The expected events follow from the seed and
 * the edits each test makes.
 */
class XmlFeedExampleTest {
  private static final Path EXAMPLE = Peers.repositoryRoot().resolve("examples/xml-feed");

  /**
   * What the vendor serves: a shop's product feed: {@code products-N.xml} for {@code ?page=N}, with
   * no charset parameter (the document's own declaration says UTF-8), deflate'd when asked.
   */
  private static final FileServer.Endpoint FEED =
      new FileServer.Endpoint(
          "/feed/products.xml",
          "products-" + FileServer.PAGE_SLOT + ".xml",
          "application/xml",
          FileServer.Coding.DEFLATE);

  private static final ObjectMapper JSON = new ObjectMapper();

  /** What the XML parser says of {@code </titel>} closing {@code <title>} on line 5. */
  private static final String MALFORMED =
      "line 5, column 34: Unexpected close tag </titel>; expected </title>.";

  @TempDir Path dir;
  private FileServer server;
  private Path config;

  @BeforeEach
  void start() throws IOException {
    for (String page : new String[] {"products-1.xml", "products-2.xml"}) {
      Files.copy(EXAMPLE.resolve("feed").resolve(page), dir.resolve(page));
    }
    server = FileServer.start(dir, 0, FEED);
    config =
        WatukuyCli.config(
            EXAMPLE.resolve("watukuy.yaml"),
            dir,
            Map.of("127.0.0.1:3993", server.url().substring("http://".length())));
  }

  @AfterEach
  void stop() {
    if (server != null) server.close();
  }

  @Test
  void bothPagesAreReadDeflatedWithAttributesNamespacesAndAPageOfOne() {
    WatukuyCli.Result first = run();

    assertThat(first.changes())
        .containsExactly(
            "created SKU-1001", "created SKU-1002", "created SKU-1003", "created SKU-2001");
    assertThat(server.log())
        .containsExactly("GET /feed/products.xml deflate", "GET /feed/products.xml?page=2 deflate");
    JsonNode chullo = first.events().get(1).get("data");
    assertThat(chullo.get("title").textValue()).isEqualTo("Chullo & guantes");
    assertThat(chullo.get("updated").textValue()).isEqualTo("2026-11-30T08:05:00Z");
    // The one product of page 2 is an item like the others, not a list's worth of fields.
    JsonNode poncho = first.events().get(3).get("data");
    assertThat(poncho.get("id").textValue()).isEqualTo("SKU-2001");
    assertThat(poncho.get("price").get("currency").textValue()).isEqualTo("PEN");
    assertThat(poncho.get("price").get("").textValue()).isEqualTo("75.50");
    assertThat(poncho.get("availability").textValue()).isEqualTo("out of stock");
  }

  @Test
  void aRepricedProductIsUpdatedARemovedOneDeletedAndAThirdRunIsSilent() throws IOException {
    run();
    edit("products-1.xml", s -> s.replace(">189.00<", ">179.00<"));
    // Page 2 loses its only product: <catalog> with no <product> reads as an empty page.
    edit("products-2.xml", s -> s.replaceFirst("(?s)\\s*<product id=\"SKU-2001\".*</product>", ""));

    WatukuyCli.Result second = run();
    assertThat(second.changes()).containsExactly("updated SKU-1001", "deleted SKU-2001");
    assertThat(second.events().get(0).get("data").get("price").get("").textValue())
        .isEqualTo("179.00");
    assertThat(run().changes()).isEmpty();
  }

  @Test
  void aMalformedPageFailsTheCycleNamingLineAndColumnAndStoresNothingOfIt() throws IOException {
    run();
    // A repricing, and on line 5 a closing tag that does not match its opening one.
    edit("products-1.xml", s -> s.replace(">59.90<", ">54.90<"));
    edit("products-1.xml", s -> s.replace("alpaca</title>", "alpaca</titel>"));

    WatukuyCli.Result broken = WatukuyCli.run("run", config.toString(), "--once");

    assertThat(broken.exit()).isEqualTo(1);
    assertThat(broken.changes()).isEmpty();
    assertThat(broken.stderr())
        .contains("poller products: GET " + server.url() + "/feed/products.xml (HTTP 200")
        .contains(MALFORMED);
    assertThat(server.log()).endsWith("GET /feed/products.xml deflate");
    JsonNode key = inspect().at("/pollers/0");
    assertThat(key.toString()).contains(MALFORMED);
    assertThat(key.get("items").asInt()).isEqualTo(4);

    // Nothing of the broken page was stored: with the tag mended, the repricing is news.
    edit("products-1.xml", s -> s.replace("alpaca</titel>", "alpaca</title>"));
    assertThat(run().changes()).containsExactly("updated SKU-1002");
  }

  @Test
  void aMalformedLaterPageKeepsTheCommittedPagesAndDeletesNothing() throws IOException {
    run();
    edit("products-1.xml", s -> s.replace(">59.90<", ">54.90<"));
    edit("products-2.xml", s -> s.replace("lluvia</title>", "lluvia</titel>"));

    WatukuyCli.Result broken = WatukuyCli.run("run", config.toString(), "--once");

    // Page 1 was read and committed before page 2 failed (docs/guarantees.md, "G4. Atomic
    // commit": one transaction per page); the listing is incomplete, so SKU-2001 is not deleted.
    assertThat(broken.exit()).isEqualTo(1);
    assertThat(broken.changes()).containsExactly("updated SKU-1002");
    assertThat(broken.stderr()).contains("/feed/products.xml?page=2 (HTTP 200").contains(MALFORMED);
    assertThat(inspect().at("/pollers/0/items").asInt()).isEqualTo(4);

    edit("products-2.xml", s -> s.replace("lluvia</titel>", "lluvia</title>"));
    assertThat(run().changes()).isEmpty();
  }

  private void edit(String page, java.util.function.UnaryOperator<String> change)
      throws IOException {
    Path file = dir.resolve(page);
    String before = Files.readString(file, StandardCharsets.UTF_8);
    String after = change.apply(before);
    assertThat(after).as("the edit of %s changes it", page).isNotEqualTo(before);
    Files.writeString(file, after, StandardCharsets.UTF_8);
  }

  private JsonNode inspect() throws IOException {
    WatukuyCli.Result r = WatukuyCli.run("inspect", config.toString(), "--json");
    assertThat(r.exit()).as("inspect; stderr: %s", r.stderr()).isZero();
    return JSON.readTree(r.stdout());
  }

  /** {@code watukuy run CONFIG --once}: exit 0 and nothing wrong on stderr. */
  private WatukuyCli.Result run() {
    WatukuyCli.Result r = WatukuyCli.run("run", config.toString(), "--once");
    assertThat(r.exit())
        .as("exit code; stderr:\n%s\nserver: %s", r.stderr(), server.log())
        .isZero();
    assertThat(r.stderr().lines().filter(l -> l.matches("(?i).*\\b(error|warn|exception)\\b.*")))
        .as("problems on stderr")
        .isEmpty();
    return r;
  }
}
