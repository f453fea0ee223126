package io.watukuy.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * A config string with {@code {{variable}}} placeholders, rendered per request. The environment
 * ({@code ${NAME}}) is substituted once, when the config is read, not here. Besides {@link
 * #VARIABLES}, {@code {{offset}}} and {@code {{last.POINTER}}} page a listing ({@link
 * OffsetPaging}).
 */
final class Template {
  static final Set<String> VARIABLES =
      Set.of("cursor.value", "cursor.tieBreak", "cursor.page", "page", "partition");

  private final String source;
  // Literal text and variable names alternate: even indexes are literals.
  private final List<String> parts;

  private Template(String source, List<String> parts) {
    this.source = source;
    this.parts = parts;
  }

  /**
   * Parses {@code text}.
   *
   * @throws IllegalArgumentException naming an unknown variable or an unclosed placeholder
   */
  static Template parse(String text) {
    List<String> parts = new ArrayList<>();
    int i = 0;
    while (true) {
      int open = text.indexOf("{{", i);
      if (open < 0) {
        parts.add(text.substring(i));
        return new Template(text, List.copyOf(parts));
      }
      int close = text.indexOf("}}", open + 2);
      if (close < 0) throw new IllegalArgumentException("'{{' without a closing '}}'");
      String name = text.substring(open + 2, close).trim();
      if (!VARIABLES.contains(name) && !OffsetPaging.isVariable(name)) {
        throw new IllegalArgumentException(
            "unknown template variable {{"
                + name
                + "}} (known: {{cursor.value}}, {{cursor.tieBreak}},"
                + " {{cursor.page}}, {{page}}, {{partition}}, {{offset}}, {{last./id}})");
      }
      parts.add(text.substring(i, open));
      parts.add(name);
      i = close + 2;
    }
  }

  /** Whether the template holds {@code {{name}}}. */
  boolean uses(String name) {
    for (int i = 1; i < parts.size(); i += 2) if (parts.get(i).equals(name)) return true;
    return false;
  }

  /** The names of the variables the template holds, in order, repeats included. */
  List<String> names() {
    List<String> names = new ArrayList<>();
    for (int i = 1; i < parts.size(); i += 2) names.add(parts.get(i));
    return names;
  }

  boolean hasVariables() {
    return parts.size() > 1;
  }

  /**
   * Renders with {@code vars}; each variable's value goes through {@code encode} first.
   *
   * @return the text, or {@code null} when some variable has no value and {@code nullIfMissing} is
   *     set; otherwise a missing value renders as {@code ""}
   */
  @Nullable String render(
      Map<String, @Nullable String> vars, UnaryOperator<String> encode, boolean nullIfMissing) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < parts.size(); i++) {
      if (i % 2 == 0) {
        b.append(parts.get(i));
        continue;
      }
      String value = vars.get(parts.get(i));
      if (value == null) {
        if (nullIfMissing) return null;
        continue;
      }
      b.append(encode.apply(value));
    }
    return b.toString();
  }

  @Override
  public String toString() {
    return source;
  }
}
