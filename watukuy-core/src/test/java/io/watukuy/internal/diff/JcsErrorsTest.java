package io.watukuy.internal.diff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.FloatNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;

class JcsErrorsTest {

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** {"items": [{}, {}, {}, {"name": value}]} so the failing value sits at /items/3/name. */
  private static ObjectNode itemsWithName(JsonNode value) {
    ObjectNode root = NODES.objectNode();
    ArrayNode items = root.putArray("items");
    items.addObject();
    items.addObject();
    items.addObject();
    items.addObject().set("name", value);
    return root;
  }

  @Test
  void rejectsNaNWithItsPath() {
    ObjectNode root = NODES.objectNode();
    root.put("id", 1);
    root.set("price", DoubleNode.valueOf(Double.NaN));

    assertThatThrownBy(() -> Jcs.canonicalize(root))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessage("/price: NaN cannot be canonicalized")
        .extracting(e -> ((CanonicalizationException) e).path())
        .isEqualTo("/price");
  }

  @Test
  void rejectsFloatNaN() {
    assertThatThrownBy(() -> Jcs.canonicalize(itemsWithName(FloatNode.valueOf(Float.NaN))))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessage("/items/3/name: NaN cannot be canonicalized");
  }

  @Test
  void rejectsPositiveInfinityWithItsPath() {
    assertThatThrownBy(
            () -> Jcs.canonicalize(itemsWithName(DoubleNode.valueOf(Double.POSITIVE_INFINITY))))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessage("/items/3/name: Infinity cannot be canonicalized");
  }

  @Test
  void rejectsNegativeInfinityWithItsPath() {
    assertThatThrownBy(
            () -> Jcs.canonicalize(itemsWithName(DoubleNode.valueOf(Double.NEGATIVE_INFINITY))))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessage("/items/3/name: -Infinity cannot be canonicalized");
  }

  @Test
  void rejectsBigNumbersBeyondTheDoubleRange() {
    assertThatThrownBy(
            () -> Jcs.canonicalize(itemsWithName(DecimalNode.valueOf(new BigDecimal("1E+400")))))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessage("/items/3/name: number 1E+400 is outside the IEEE-754 double range");
    ArrayNode array = NODES.arrayNode().add(BigInteger.TEN.pow(400).negate());
    assertThatThrownBy(() -> Jcs.canonicalize(array))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessageStartingWith("/0: number -1000")
        .hasMessageEndingWith(" is outside the IEEE-754 double range");
  }

  @Test
  void rejectsAnUnpairedHighSurrogateInAValue() {
    assertThatThrownBy(() -> Jcs.canonicalize(itemsWithName(TextNode.valueOf("ab\uD800cd"))))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessage("/items/3/name: unpaired surrogate U+D800");
  }

  @Test
  void rejectsAHighSurrogateAtTheEndOfAValue() {
    assertThatThrownBy(() -> Jcs.canonicalize(itemsWithName(TextNode.valueOf("ab\uD83D"))))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessage("/items/3/name: unpaired surrogate U+D83D");
  }

  @Test
  void rejectsAnUnpairedLowSurrogateInAValue() {
    assertThatThrownBy(() -> Jcs.canonicalize(itemsWithName(TextNode.valueOf("\uDE02x"))))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessage("/items/3/name: unpaired surrogate U+DE02");
  }

  @Test
  void rejectsASurrogatePairInTheWrongOrder() {
    assertThatThrownBy(() -> Jcs.canonicalize(itemsWithName(TextNode.valueOf("\uDE02\uD83D"))))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessage("/items/3/name: unpaired surrogate U+DE02");
  }

  @Test
  void rejectsAnUnpairedHighSurrogateInAKey() {
    ObjectNode inner = NODES.objectNode();
    inner.put("ok", 1);
    inner.put("k\uD800", "value");
    ObjectNode root = NODES.objectNode();
    root.set("meta", inner);

    assertThatThrownBy(() -> Jcs.canonicalize(root))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessage("/meta/k\\uD800: unpaired surrogate U+D800 in object key")
        .extracting(e -> ((CanonicalizationException) e).path())
        .isEqualTo("/meta/k\\uD800");
  }

  @Test
  void rejectsAnUnpairedLowSurrogateInAKey() {
    ObjectNode root = NODES.objectNode();
    root.putArray("list").addObject().put("\uDC00", true);

    assertThatThrownBy(() -> Jcs.canonicalize(root))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessage("/list/0/\\uDC00: unpaired surrogate U+DC00 in object key");
  }

  @Test
  void escapesTildeAndSlashInThePathAsJsonPointerDoes() {
    ObjectNode root = NODES.objectNode();
    root.putObject("a/b").set("c~d", DoubleNode.valueOf(Double.NaN));

    assertThatThrownBy(() -> Jcs.canonicalize(root))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessage("/a~1b/c~0d: NaN cannot be canonicalized");
  }

  @Test
  void showsControlCharactersInThePathAsEscapes() {
    ObjectNode root = NODES.objectNode();
    root.set("line\nbreak", DoubleNode.valueOf(Double.NaN));

    assertThatThrownBy(() -> Jcs.canonicalize(root))
        .hasMessage("/line\\u000Abreak: NaN cannot be canonicalized");
  }

  @Test
  void namesTheRootWhenTheTopLevelValueIsBad() {
    assertThatThrownBy(() -> Jcs.canonicalize(DoubleNode.valueOf(Double.NaN)))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessage("(root): NaN cannot be canonicalized")
        .extracting(e -> ((CanonicalizationException) e).path())
        .isEqualTo("");
  }

  @Test
  void rejectsAMissingNode() {
    assertThatThrownBy(() -> Jcs.canonicalize(MissingNode.getInstance()))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessage("(root): missing node cannot be canonicalized");
  }

  @Test
  void rejectsAPojoNodeThatDoesNotWrapAJsonNode() {
    ObjectNode root = NODES.objectNode();
    root.set("when", new POJONode(java.time.Instant.EPOCH));

    assertThatThrownBy(() -> Jcs.canonicalize(root))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessage("/when: POJO value of type java.time.Instant cannot be canonicalized");
  }

  @Test
  void reportsErrorsThroughCanonicalStringAndHashToo() {
    JsonNode bad = itemsWithName(DoubleNode.valueOf(Double.NaN));

    assertThatThrownBy(() -> Jcs.canonicalString(bad))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessageContaining("/items/3/name");
    assertThatThrownBy(() -> Jcs.hash(bad))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessageContaining("/items/3/name");
  }

  @Test
  void exceptionIsUnchecked() {
    assertThat(RuntimeException.class).isAssignableFrom(CanonicalizationException.class);
  }
}
