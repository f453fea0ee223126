package io.watukuy.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The {@code maxItemSize} check (G7, G10; docs/config.md, "maxItemSize"): an item is over the bound
 * exactly when its compact JSON is, whatever shortcut the check takes for the items far below it.
 */
class ItemSizeTest {

  private static final String[] VECTORS = {
    "arrays", "french", "structures", "unicode", "values", "weird"
  };

  /**
   * Trees whose every character is written as itself: their compact JSON is Jackson's text output
   * encoded as UTF-8 (its byte output would escape a surrogate pair as two {@code \\u} escapes).
   */
  private static List<JsonNode> plainTrees() {
    JsonNodeFactory f = JsonNodeFactory.instance;
    List<JsonNode> trees = new ArrayList<>();
    ObjectNode mixed = f.objectNode();
    mixed.put("ascii", "plain text");
    mixed.put("latin", "caf\u00e9 na\u00efve"); // two UTF-8 bytes each
    mixed.put("cjk", "\u6f22\u5b57"); // three bytes each
    mixed.put("emoji", "\ud83d\ude00"); // a surrogate pair: four bytes
    mixed.put("\u00e9t\u00e9", 1);
    mixed.put("min", Long.MIN_VALUE);
    mixed.put("max", Long.MAX_VALUE);
    mixed.put("neg", -42);
    mixed.put("zero", 0);
    mixed.put("big", new BigInteger("123456789012345678901234567890"));
    mixed.put("dbl", 1.5e-7);
    mixed.put("t", true);
    mixed.put("f", false);
    mixed.putNull("n");
    mixed.putArray("empty");
    mixed.putObject("nested").putArray("a").add(1).add("x").add(f.objectNode());
    trees.add(mixed);
    // Seeded: random strings over the four UTF-8 lengths, in objects and arrays.
    Random random = new Random(17);
    String[] alphabet = {"a", "\u00e9", "\u6f22", "\ud83d\ude00"};
    for (int t = 0; t < 50; t++) {
      ObjectNode item = f.objectNode();
      int fields = 1 + random.nextInt(20);
      for (int i = 0; i < fields; i++) {
        StringBuilder s = new StringBuilder();
        int len = random.nextInt(40);
        for (int c = 0; c < len; c++) s.append(alphabet[random.nextInt(alphabet.length)]);
        if (random.nextBoolean()) item.put("k" + i, s.toString());
        else item.putArray("k" + i).add(s.toString()).add(random.nextLong());
      }
      trees.add(item);
    }
    return trees;
  }

  @Test
  void compactSizeIsTheLengthOfCompactUtf8Json() throws IOException {
    for (JsonNode tree : plainTrees()) {
      assertThat(ItemView.compactSize(tree))
          .as(tree.toString())
          .isEqualTo(Json.MAPPER.writeValueAsString(tree).getBytes(StandardCharsets.UTF_8).length);
    }
  }

  @Test
  void oversizeIsTheCompactSizeExactlyWhenOverTheBound() throws IOException {
    List<JsonNode> trees = plainTrees();
    for (String name : VECTORS) trees.add(vector(name));
    for (JsonNode tree : trees) {
      long size = ItemView.compactSize(tree);
      assertThat(ItemView.oversize(tree, size)).as(tree.toString()).isZero();
      assertThat(ItemView.oversize(tree, size + 1)).isZero();
      assertThat(ItemView.oversize(tree, Long.MAX_VALUE)).isZero();
      assertThat(ItemView.oversize(tree, size - 1)).isEqualTo(size);
      assertThat(ItemView.oversize(tree, 0)).isEqualTo(size);
    }
  }

  @Test
  void anItemOfMultiByteTextJustOverTheBoundIsCaught() {
    // 1000 three-byte characters: 3002 bytes with the quotes, where the length alone says 1002.
    String text = "\u6f22".repeat(1000);
    JsonNode item = JsonNodeFactory.instance.objectNode().put("b", text);
    long size = 1 + 3 + 1 + 3002 + 1; // {"b":"..."}
    assertThat(ItemView.oversize(item, size - 1)).isEqualTo(size);
    assertThat(ItemView.oversize(item, size)).isZero();
  }

  @Test
  void digitsCountsLikeLongToString() {
    long[] values = {0, 9, 10, -1, -10, 99, 100, Integer.MAX_VALUE, Long.MAX_VALUE, Long.MIN_VALUE};
    for (long v : values) assertThat(ItemView.digits(v)).isEqualTo(Long.toString(v).length());
  }

  private static JsonNode vector(String name) throws IOException {
    try (InputStream in = ItemSizeTest.class.getResourceAsStream("/jcs/input/" + name + ".json")) {
      assertThat(in).as(name).isNotNull();
      return Json.MAPPER.readTree(in);
    }
  }
}
