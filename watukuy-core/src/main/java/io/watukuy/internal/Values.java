package io.watukuy.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Identity, version and cursor value rules (docs/architecture.md, "Identity and version values").
 */
public final class Values {
  private Values() {}

  /**
   * The value as identity/version text: strings as-is, integers as decimal text, textual and
   * integral JSON nodes likewise.
   *
   * @return null when the value is null or a JSON null
   * @throws IllegalArgumentException for any other type, with a message naming the type
   */
  public static @Nullable String text(@Nullable Object value) {
    if (value == null) return null;
    if (value instanceof String s) return s;
    if (value instanceof Integer
        || value instanceof Long
        || value instanceof Short
        || value instanceof Byte
        || value instanceof BigInteger) return value.toString();
    if (value instanceof JsonNode n) {
      if (n.isNull() || n.isMissingNode()) return null;
      if (n.isTextual()) return n.textValue();
      if (n.isIntegralNumber()) return n.bigIntegerValue().toString();
      throw new IllegalArgumentException(
          "a JSON " + n.getNodeType().name().toLowerCase() + " (" + abbreviate(n.toString()) + ")");
    }
    throw new IllegalArgumentException(
        kind(value) + " (" + abbreviate(String.valueOf(value)) + ")");
  }

  /** A JSON value kept as its own text: a string's contents, any other scalar's JSON text. */
  public static @Nullable String scalarText(@Nullable Object value) {
    if (value == null) return null;
    if (value instanceof String s) return s;
    if (value instanceof JsonNode n) {
      if (n.isNull() || n.isMissingNode()) return null;
      if (n.isTextual()) return n.textValue();
      return n.toString();
    }
    return value.toString();
  }

  /** Follows a dot path ({@code meta.updatedAt}) into a JSON node; missing when absent. */
  public static JsonNode path(JsonNode node, String dotPath) {
    JsonNode cur = node;
    int start = 0;
    while (true) {
      int dot = dotPath.indexOf('.', start);
      String part = dot < 0 ? dotPath.substring(start) : dotPath.substring(start, dot);
      cur = cur.path(part);
      if (dot < 0 || cur.isMissingNode()) return cur;
      start = dot + 1;
    }
  }

  private static String kind(Object value) {
    if (value instanceof Collection<?> || value.getClass().isArray()) return "a list";
    if (value instanceof Map<?, ?>) return "a map";
    return "a " + value.getClass().getSimpleName();
  }

  public static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }
}
