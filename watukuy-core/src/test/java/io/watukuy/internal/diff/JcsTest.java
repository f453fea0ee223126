package io.watukuy.internal.diff;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.BinaryNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JcsTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private static String canonical(String json) throws IOException {
    return Jcs.canonicalString(MAPPER.readTree(json));
  }

  @Test
  void sortsKeysByUtf16CodeUnits() throws IOException {
    // U+1F602 is D83D DE02 in UTF-16, so it sorts before U+FB33 although its code point is
    // larger; "B" (0x42) sorts before "a" (0x61).
    assertThat(canonical("{\"\\ufb33\":1,\"\\ud83d\\ude02\":2,\"a\":3,\"B\":4,\"\":5}"))
        .isEqualTo("{\"\":5,\"B\":4,\"a\":3,\"\uD83D\uDE02\":2,\"\uFB33\":1}");
  }

  @Test
  void sortsNestedObjectsAndKeepsArrayOrder() throws IOException {
    assertThat(
            canonical(
                "{ \"b\" : [ 3, {\"z\":1, \"y\":2}, 1 ], \"a\" : { \"d\":null, \"c\":true } }"))
        .isEqualTo("{\"a\":{\"c\":true,\"d\":null},\"b\":[3,{\"y\":2,\"z\":1},1]}");
  }

  @Test
  void writesEmptyContainersAndLiterals() throws IOException {
    assertThat(canonical("[{}, [], null, true, false, \"\"]"))
        .isEqualTo("[{},[],null,true,false,\"\"]");
  }

  @Test
  void escapesOnlyQuoteBackslashAndControlCharacters() {
    String all =
        "\"\\/\b\t\n\f\r\u0000\u0001\u001f ~\u007f\u0080\u00ff\u2028\u20ac\uFFFF\uD83D\uDE02";

    assertThat(Jcs.canonicalString(TextNode.valueOf(all)))
        .isEqualTo(
            "\"\\\"\\\\/\\b\\t\\n\\f\\r\\u0000\\u0001\\u001f ~"
                + "\u007f\u0080\u00ff\u2028\u20ac\uFFFF\uD83D\uDE02\"");
  }

  @Test
  void usesLowercaseHexForOtherControlCharacters() {
    assertThat(Jcs.canonicalString(TextNode.valueOf("\u000b\u000e\u001a")))
        .isEqualTo("\"\\u000b\\u000e\\u001a\"");
  }

  @Test
  void encodesEveryUtf8LengthCorrectly() {
    byte[] bytes = Jcs.canonicalize(TextNode.valueOf("A\u00e9\u20ac\uD83D\uDE02"));

    assertThat(bytes)
        .containsExactly(0x22, 0x41, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x82, 0x22);
  }

  @Test
  void escapesKeysLikeValues() {
    ObjectNode node = NODES.objectNode();
    node.put("a\"b\n", 1);

    assertThat(Jcs.canonicalString(node)).isEqualTo("{\"a\\\"b\\n\":1}");
  }

  @Test
  void doesNotNormaliseUnicode() {
    // Precomposed U+00C5 and A + combining ring U+030A look alike but stay distinct.
    assertThat(Jcs.canonicalString(TextNode.valueOf("\u00c5")))
        .isNotEqualTo(Jcs.canonicalString(TextNode.valueOf("A\u030a")));
  }

  @Test
  void ignoresWhitespaceKeyOrderAndNumberSpellingWhenHashing() throws IOException {
    JsonNode a = MAPPER.readTree("{\"id\": 7, \"price\": 4.50, \"tags\": [\"x\"]}");
    JsonNode b = MAPPER.readTree("{\"tags\":[\"x\"],\"price\":45e-1,\"id\":7.0}");

    assertThat(Jcs.hash(a)).isEqualTo(Jcs.hash(b));
  }

  @Test
  void hashIsSha256OfTheCanonicalBytes() throws IOException {
    JsonNode node = MAPPER.readTree("{\"b\":1,\"a\":2}");

    assertThat(Jcs.canonicalString(node)).isEqualTo("{\"a\":2,\"b\":1}");
    // printf '%s' '{"a":2,"b":1}' | sha256sum
    assertThat(Jcs.hash(node))
        .isEqualTo("d3626ac30a87e6f7a6428233b3c68299976865fa5508e4267c5415c76af7a772");
  }

  @Test
  void writesTheValueOfAPojoNodeThatWrapsAJsonNode() throws IOException {
    ObjectNode node = NODES.objectNode();
    node.set("wrapped", new POJONode(MAPPER.readTree("{\"y\":1,\"x\":2}")));

    assertThat(Jcs.canonicalString(node)).isEqualTo("{\"wrapped\":{\"x\":2,\"y\":1}}");
  }

  @Test
  void writesBinaryNodesAsPaddedBase64Strings() {
    byte[] data = "hi?".getBytes(StandardCharsets.US_ASCII);

    assertThat(Jcs.canonicalString(BinaryNode.valueOf(data))).isEqualTo("\"aGk/\"");
    assertThat(Jcs.canonicalString(BinaryNode.valueOf(new byte[] {1}))).isEqualTo("\"AQ==\"");
  }

  @Test
  void leavesTheInputTreeUntouched() throws IOException {
    String json = "{\"b\":[2,1],\"a\":1.50}";
    JsonNode node = MAPPER.readTree(json);
    JsonNode copy = node.deepCopy();

    Jcs.canonicalize(node);

    assertThat(node).isEqualTo(copy);
    assertThat(node.fieldNames()).toIterable().containsExactly("b", "a");
  }

  @Test
  void handlesTheParsersMaximumNestingDepth() throws IOException {
    String json = "[".repeat(998) + "{\"k\":[]}" + "]".repeat(998);

    assertThat(canonical(json)).isEqualTo(json);
  }

  @Test
  void handlesLargeDocuments() {
    ObjectNode node = NODES.objectNode();
    for (int i = 0; i < 5_000; i++) {
      node.put("k" + i, "v\u00e9" + i);
    }

    String canonical = Jcs.canonicalString(node);

    assertThat(canonical).startsWith("{\"k0\":\"v\u00e90\",\"k1\":\"v\u00e91\",\"k10\":");
    assertThat(canonical.getBytes(StandardCharsets.UTF_8)).isEqualTo(Jcs.canonicalize(node));
  }
}
