package io.watukuy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Small readers and writers of the end-to-end results JSON, shared by the bench, its best-of-N
 * merge ({@link BestOfRuns}) and the Camel peer, which reads and extends the bench's file.
 */
public final class ResultsJson {
  private ResultsJson() {}

  /**
   * Puts a number, or null where it is not finite: JSON has no NaN.
   *
   * @param node the object to write into
   * @param field the field's name
   * @param value any number
   */
  public static void number(ObjectNode node, String field, double value) {
    if (Double.isFinite(value)) node.put(field, value);
    else node.putNull(field);
  }

  /**
   * A number formatted for a table, or {@code -} when it is absent, null or not a number.
   *
   * @param value a field's value, or null
   * @param format a {@link String#format} pattern for one double, such as {@code %,.0f}
   * @return the text
   */
  public static String decimal(@Nullable JsonNode value, String format) {
    return value == null || !value.isNumber()
        ? "-"
        : String.format(Locale.ROOT, format, value.asDouble());
  }

  /**
   * The phase of that name in a results file's {@code phases} array ({@code first-sync}, {@code
   * idle-rescan}, ...), or in any object with such an array (the peer's section).
   *
   * @param root the results, or a section of them
   * @param name the phase
   * @return the phase's object, or null when there is none
   */
  public static @Nullable ObjectNode phase(JsonNode root, String name) {
    for (JsonNode p : root.path("phases"))
      if (p.path("phase").asText().equals(name) && p instanceof ObjectNode o) return o;
    return null;
  }
}
