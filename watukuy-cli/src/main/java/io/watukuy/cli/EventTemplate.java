package io.watukuy.cli;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * A string of an effect's request (docs/config.md, "Effects") with {@code {{/pointer}}}
 * placeholders: JSON Pointers into the event document {@link YamlEffects#document} makes ({@code
 * /item/customerId}, {@code /identity}, {@code /type}). {@code ${NAME}} was replaced when the
 * config was read; these are replaced per event.
 */
final class EventTemplate {
  private final String source;
  // Literal text and pointers alternate: even indexes are literals.
  private final List<Object> parts;

  private EventTemplate(String source, List<Object> parts) {
    this.source = source;
    this.parts = parts;
  }

  /**
   * Parses {@code text}.
   *
   * @throws IllegalArgumentException naming a placeholder that is not a JSON Pointer, or an
   *     unclosed one
   */
  static EventTemplate parse(String text) {
    List<Object> parts = new ArrayList<>();
    int i = 0;
    while (true) {
      int open = text.indexOf("{{", i);
      if (open < 0) {
        parts.add(text.substring(i));
        return new EventTemplate(text, List.copyOf(parts));
      }
      int close = text.indexOf("}}", open + 2);
      if (close < 0) throw new IllegalArgumentException("'{{' without a closing '}}'");
      String name = text.substring(open + 2, close).trim();
      parts.add(text.substring(i, open));
      parts.add(pointer(name));
      i = close + 2;
    }
  }

  /**
   * A JSON Pointer (RFC 6901) into the event document: it starts with {@code /}, and each {@code ~}
   * is {@code ~0} (a {@code ~}) or {@code ~1} (a {@code /}).
   *
   * @throws IllegalArgumentException naming {@code text} when it is not one
   */
  static JsonPointer pointer(String text) {
    if (!text.startsWith("/"))
      throw new IllegalArgumentException(
          "'"
              + text
              + "' is not a JSON Pointer into the event (such as /item/id, /identity, /type)");
    for (int i = text.indexOf('~'); i >= 0; i = text.indexOf('~', i + 1)) {
      char next = i + 1 < text.length() ? text.charAt(i + 1) : ' ';
      if (next != '0' && next != '1')
        throw new IllegalArgumentException(
            "'"
                + text
                + "' is not a JSON Pointer: '~' must be followed by 0 or 1 (RFC 6901: ~0 is '~',"
                + " ~1 is '/')");
    }
    try {
      return JsonPointer.compile(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + text + "' is not a JSON Pointer: " + e.getMessage());
    }
  }

  /** The placeholders' pointers, in order, repeats included. */
  List<JsonPointer> pointers() {
    List<JsonPointer> out = new ArrayList<>();
    for (int i = 1; i < parts.size(); i += 2) out.add((JsonPointer) parts.get(i));
    return out;
  }

  /** The pointer when the template is nothing but one placeholder, else null. */
  @Nullable JsonPointer only() {
    return parts.size() == 3
            && ((String) parts.get(0)).isEmpty()
            && ((String) parts.get(2)).isEmpty()
        ? (JsonPointer) parts.get(1)
        : null;
  }

  /**
   * The text with {@code value} for every placeholder: what any event renders when each value is
   * {@code value}, for checking at load what the template's literal text allows.
   */
  String sample(String value) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < parts.size(); i++) b.append(i % 2 == 0 ? (String) parts.get(i) : value);
    return b.toString();
  }

  /**
   * Renders against {@code event}; each value (a string as it is, anything else as JSON) goes
   * through {@code encode}.
   *
   * @throws MissingValue naming the first pointer the event has no value at
   */
  String render(JsonNode event, UnaryOperator<String> encode) throws MissingValue {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < parts.size(); i++) {
      if (i % 2 == 0) {
        b.append((String) parts.get(i));
        continue;
      }
      b.append(encode.apply(text(value(event, (JsonPointer) parts.get(i)))));
    }
    return b.toString();
  }

  /**
   * The value at {@code pointer}, for text: JSON null is no value there.
   *
   * @throws MissingValue when there is none, or it is null
   */
  static JsonNode value(JsonNode event, JsonPointer pointer) throws MissingValue {
    JsonNode v = event.at(pointer);
    if (v.isMissingNode() || v.isNull()) throw new MissingValue(pointer.toString());
    return v;
  }

  /**
   * The value at {@code pointer}, JSON null included: what a body string that is nothing but the
   * placeholder sends (docs/config.md, "Effects").
   *
   * @throws MissingValue when there is none
   */
  static JsonNode present(JsonNode event, JsonPointer pointer) throws MissingValue {
    JsonNode v = event.at(pointer);
    if (v.isMissingNode()) throw new MissingValue(pointer.toString());
    return v;
  }

  static String text(JsonNode value) {
    return value.isValueNode() ? value.asText() : value.toString();
  }

  @Override
  public String toString() {
    return source;
  }

  /** An event without a value at a placeholder's pointer: the message is the pointer. */
  static final class MissingValue extends Exception {
    MissingValue(String pointer) {
      super(pointer, null, false, false);
    }
  }
}
