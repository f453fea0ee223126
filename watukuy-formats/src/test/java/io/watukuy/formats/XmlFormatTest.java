package io.watukuy.formats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.BodyFormat;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class XmlFormatTest {

  // An order feed as ERPs publish one: a default namespace and a prefixed one, attributes, an
  // element with both attributes and text, repeated lines within an order.
  static final String FEED =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          + "<orders xmlns=\"urn:shop:orders:v2\" xmlns:x=\"urn:shop:ext\" generated=\"2026-12-01T08:00:00Z\">\n"
          + "  <order id=\"1001\" status=\"paid\">\n"
          + "    <customer>Müller &amp; Söhne</customer>\n"
          + "    <total currency=\"EUR\">12.50</total>\n"
          + "    <line sku=\"A-1\" qty=\"2\"/>\n"
          + "    <line sku=\"B-7\" qty=\"1\"/>\n"
          + "    <x:channel>web</x:channel>\n"
          + "  </order>\n"
          + "  <order id=\"1002\" status=\"open\">\n"
          + "    <customer>Bob</customer>\n"
          + "    <total currency=\"EUR\">7.00</total>\n"
          + "    <line sku=\"C-3\" qty=\"5\"/>\n"
          + "  </order>\n"
          + "</orders>\n";

  private static final XmlFormat ORDERS = new XmlFormat().withList("/orders/order");

  @Test
  void theRootIsTheTreesFieldAndRepeatedElementsAreArrays() throws IOException {
    JsonNode tree = read(ORDERS, FEED);

    assertThat(tree.at("/orders/generated").textValue()).isEqualTo("2026-12-01T08:00:00Z");
    JsonNode orders = tree.at("/orders/order");
    assertThat(orders).hasSize(2);
    JsonNode first = orders.get(0);
    assertThat(first.get("id").textValue()).isEqualTo("1001");
    assertThat(first.get("customer").textValue()).isEqualTo("Müller & Söhne");
    assertThat(first.at("/total/currency").textValue()).isEqualTo("EUR");
    assertThat(first.at(JsonPointer.compile("/total/")).textValue()).isEqualTo("12.50");
    assertThat(first.get("line")).hasSize(2);
    assertThat(first.get("channel").textValue()).isEqualTo("web");
  }

  @Test
  void oneOrNoElementAtAListPointerIsStillAList() throws IOException {
    String one = FEED.replaceAll("(?s)  <order id=\"1002\".*?</order>\n", "");

    assertThat(read(ORDERS, one).at("/orders/order")).hasSize(1);
    assertThat(read(ORDERS, one).at("/orders/order/0/id").textValue()).isEqualTo("1001");
    assertThat(read(ORDERS, "<orders/>").at("/orders/order").isArray()).isTrue();
    assertThat(read(ORDERS, "<orders/>").at("/orders/order")).isEmpty();
    assertThat(read(ORDERS, "<orders generated=\"x\"></orders>").at("/orders/order")).isEmpty();
    // Without the pointer, Jackson's own reading: one element is an object.
    assertThat(read(new XmlFormat(), one).at("/orders/order").isObject()).isTrue();
  }

  @Test
  void aDtdIsRefusedSoNoEntityIsExpandedOrFetched() {
    String laughs =
        "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [<!ENTITY lol \"lol\">"
            + "<!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">]>\n"
            + "<orders><order id=\"&lol2;\"/></orders>";
    String xxe =
        "<?xml version=\"1.0\"?>\n<!DOCTYPE orders [<!ENTITY secret SYSTEM \"file:///etc/passwd\">]>"
            + "<orders><order id=\"1\">&secret;</order></orders>";

    for (String body : new String[] {laughs, xxe}) {
      assertThatThrownBy(() -> read(ORDERS, body))
          .isInstanceOf(IOException.class)
          .hasMessageStartingWith("the document has a DTD (<!DOCTYPE ...>), which is refused")
          .hasMessageNotContaining("root:");
    }
  }

  @Test
  void malformedXmlNamesLineAndColumn() {
    assertThatThrownBy(() -> read(ORDERS, "<orders>\n  <order id=\"1\">\n</orders>"))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("line 3, column ");
  }

  @Test
  void aDeclaredCharsetWinsAndTheDeclarationIsReadOtherwise() throws IOException {
    String latin =
        "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><orders><order id=\"é\"/></orders>";
    byte[] bytes = latin.getBytes(StandardCharsets.ISO_8859_1);

    assertThat(
            ORDERS.read(new ByteArrayInputStream(bytes), null).at("/orders/order/0/id").textValue())
        .isEqualTo("é");
    byte[] utf16 = "<orders><order id=\"ü\"/></orders>".getBytes(StandardCharsets.UTF_16);
    assertThat(
            ORDERS
                .read(new ByteArrayInputStream(utf16), StandardCharsets.UTF_16)
                .at("/orders/order/0/id")
                .textValue())
        .isEqualTo("ü");
  }

  @Test
  void foundByServiceLoaderAndByContentType() {
    assertThat(BodyFormat.named("xml")).get().isInstanceOf(XmlFormat.class);
    assertThat(BodyFormat.forContentType("application/atom+xml")).isInstanceOf(XmlFormat.class);
    assertThat(BodyFormat.forContentType("text/xml; charset=iso-8859-1"))
        .isInstanceOf(XmlFormat.class);
    assertThat(read0("")).isTrue();
  }

  private static boolean read0(String body) {
    try {
      return ORDERS.read(new ByteArrayInputStream(new byte[0]), null).isMissingNode();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static JsonNode read(XmlFormat format, String body) throws IOException {
    return format.read(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)), null);
  }
}
