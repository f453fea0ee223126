package io.watukuy.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ItemViewSizeTest {

  private static long utf8Length(JsonNode n) {
    return n.toString().getBytes(StandardCharsets.UTF_8).length;
  }

  @Test
  void theBoundIsExactForEmptyAndNumberOnlyItemsAndThreeBytesAUnitForText() {
    JsonNode numbers = Json.tree("{\"a\":[1,2.5,-3,true,null],\"b\":{}}");
    assertThat(ItemView.compactSizeBound(numbers))
        .isEqualTo(ItemView.compactSize(numbers) + 2L * 2) // two one-letter names
        .isEqualTo(utf8Length(numbers) + 4);
    JsonNode text = Json.tree("{\"t\":\"caf\\u00e9\"}");
    // {"t":"café"}: 1 name unit, 4 text units, each counted as 3 bytes.
    assertThat(ItemView.compactSizeBound(text)).isEqualTo(2 + 3 + 3 + 4 * 3 + 2);
    assertThat(ItemView.compactSize(text)).isEqualTo(utf8Length(text)).isEqualTo(13);
  }

  @Test
  void theBoundIsNeverBelowTheExactSizeForSeededRandomItems() {
    SplittableRandom random = new SplittableRandom(17);
    String[] pieces = {"a", "\u00e9", "\u4e2d", "\ud83d\ude00", "x y", "0"};
    for (int item = 0; item < 200; item++) {
      StringBuilder json = new StringBuilder("{");
      int fields = random.nextInt(1, 8);
      for (int f = 0; f < fields; f++) {
        StringBuilder value = new StringBuilder();
        for (int k = random.nextInt(0, 20); k > 0; k--) value.append(pieces[random.nextInt(6)]);
        json.append(f == 0 ? "" : ",")
            .append("\"f")
            .append(f)
            .append(pieces[random.nextInt(6)])
            .append("\":")
            .append(random.nextBoolean() ? "[\"" + value + "\"," + f + "]" : "\"" + value + "\"");
      }
      JsonNode node = Json.tree(json.append('}').toString());
      long exact = ItemView.compactSize(node);
      assertThat(exact).isEqualTo(utf8Length(node));
      assertThat(ItemView.compactSizeBound(node)).isGreaterThanOrEqualTo(exact);
    }
  }
}
