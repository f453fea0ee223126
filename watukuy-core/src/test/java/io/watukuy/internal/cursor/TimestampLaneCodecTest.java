package io.watukuy.internal.cursor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.Cursors;
import io.watukuy.Watermark;
import io.watukuy.internal.Json;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The timestamp cursor's stored text is written and read token by token: the same text an {@code
 * ObjectNode} of the two fields gives, and what a tree reads back, for values with quotes,
 * backslashes, control and non-ASCII characters (seeded); other forms still read as a tree does.
 */
class TimestampLaneCodecTest {
  private final TimestampLane lane =
      new TimestampLane("p", Cursors.timestamp("updated_at").tieBreak("id").build());

  @Test
  void encodesAsAnObjectNodeAndDecodesWhatItEncodes() {
    Random random = new Random(11L);
    for (int i = 0; i < 2_000; i++) {
      Watermark w = new Watermark(text(random), text(random));
      ObjectNode n = Json.MAPPER.createObjectNode();
      n.put("value", w.value());
      n.put("tieBreak", w.tieBreak());

      String encoded = lane.encode(w);

      assertThat(encoded).isEqualTo(n.toString());
      assertThat(lane.decode(encoded)).isEqualTo(w);
    }
  }

  @Test
  void decodesOtherFormsAsATreeDoes() {
    assertThat(lane.decode("{\"value\":17,\"tieBreak\":\"a\"}"))
        .isEqualTo(new Watermark("17", "a"));
    assertThat(lane.decode("{\"tieBreak\":{\"x\":1}}")).isEqualTo(new Watermark(null, "{\"x\":1}"));
    assertThat(lane.decode("{\"value\":\"2026-01-01T00:00:00Z\",\"other\":[1]}"))
        .isEqualTo(new Watermark("2026-01-01T00:00:00Z", null));
    assertThat(lane.decode("{}")).isEqualTo(new Watermark(null, null));
    assertThat(lane.decode(null)).isEqualTo(lane.initial());
  }

  private static String text(Random r) {
    if (r.nextInt(5) == 0) return null;
    String[] parts = {"2026-10-01T00:00:00Z", "\"q\"", "b\\s", "\n", "\u0001", "é😀", "", "42"};
    StringBuilder b = new StringBuilder();
    for (int i = r.nextInt(3); i >= 0; i--) b.append(parts[r.nextInt(parts.length)]);
    return b.toString();
  }
}
