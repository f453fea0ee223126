package io.watukuy.sink.nats;

import io.watukuy.PollerKey;
import io.watukuy.sink.Destination;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * NATS subjects built from the {@code subject} template (docs/sinks.md, "NATS JetStream"): the
 * rendered subject of a key, the filter a created stream captures, and whether a stream's subject
 * covers that filter.
 *
 * <p>A subject is tokens joined by dots. A token of the template that renders empty (a {@code
 * {{partition}}} token of a poller without partitions) is left out, so {@code
 * watukuy.{{source}}.{{partition}}} is {@code watukuy.orders} without partitions and {@code
 * watukuy.orders.eu} with them. Every token of the result must be non-empty and hold no space,
 * control character, {@code *} or {@code >}: a wildcard in a published subject is refused by the
 * server, and an empty token makes it invalid.
 */
final class Subjects {
  private Subjects() {}

  /**
   * Checks the template's fixed parts.
   *
   * @param template the {@code subject} template
   * @return null when valid, else what is wrong
   */
  static @Nullable String checkTemplate(Destination template) {
    String text = template.toString();
    for (String token : text.split("\\.", -1)) {
      if (hasPlaceholder(token)) continue;
      String problem = checkToken(token);
      if (problem != null) return "'" + text + "' " + problem;
    }
    if (!template.isConstant() && hasPlaceholder(text.split("\\.", -1)[0]))
      return "'"
          + text
          + "' must start with a fixed token (such as watukuy.{{source}}): the stream captures"
          + " the subjects under it";
    return null;
  }

  /**
   * The subject of one key's events.
   *
   * @param template the {@code subject} template, checked by {@link #checkTemplate}
   * @param key the poller and partition
   * @return the subject
   * @throws IllegalArgumentException when the rendered subject is not a valid subject, saying why
   */
  static String render(Destination template, PollerKey key) {
    if (template.isConstant()) return template.toString();
    List<String> tokens = new ArrayList<>();
    for (String token : template.toString().split("\\.", -1)) {
      if (!hasPlaceholder(token)) {
        tokens.add(token);
        continue;
      }
      String rendered = Destination.parse(token).render(key);
      // {{partition}} is empty without partitions: its token is left out, not left empty.
      if (!rendered.isEmpty()) tokens.add(rendered);
    }
    String subject = String.join(".", tokens);
    for (String token : subject.split("\\.", -1)) {
      String problem = checkToken(token);
      if (problem != null)
        throw new IllegalArgumentException(
            "subject '" + subject + "' (from '" + template + "' for " + key + ") " + problem);
    }
    return subject;
  }

  /**
   * The subject filter a stream needs to capture every subject the template renders: the template
   * itself when fixed, else its fixed leading tokens followed by {@code >}.
   *
   * @param template the template, checked by {@link #checkTemplate}
   * @return e.g. {@code watukuy.>}
   */
  static String streamFilter(Destination template) {
    if (template.isConstant()) return template.toString();
    List<String> fixed = new ArrayList<>();
    for (String token : template.toString().split("\\.", -1)) {
      if (hasPlaceholder(token)) break;
      fixed.add(token);
    }
    fixed.add(">");
    return String.join(".", fixed);
  }

  /**
   * Whether a stream subject (which may hold {@code *} and {@code >}) matches every subject that
   * {@code filter} matches.
   *
   * @param streamSubject a subject of a stream's configuration
   * @param filter a subject or a filter from {@link #streamFilter}
   * @return true when every subject of {@code filter} is captured by {@code streamSubject}
   */
  static boolean covers(String streamSubject, String filter) {
    String[] s = streamSubject.split("\\.", -1);
    String[] f = filter.split("\\.", -1);
    for (int i = 0; i < s.length; i++) {
      if (s[i].equals(">")) return i < f.length;
      if (i >= f.length) return false;
      if (s[i].equals("*")) {
        if (f[i].equals(">")) return false;
        continue;
      }
      if (!s[i].equals(f[i])) return false;
    }
    return s.length == f.length;
  }

  private static boolean hasPlaceholder(String token) {
    return token.contains("{{");
  }

  static @Nullable String checkToken(String token) {
    if (token.isEmpty()) return "has an empty token (two dots in a row, or a dot at an end)";
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      if (c <= ' ' || c == 0x7f)
        return "holds a space or control character in token '" + token + "'";
      if (c == '*' || c == '>')
        return "holds the wildcard '"
            + c
            + "' in token '"
            + token
            + "' (a subject to publish to"
            + " cannot)";
    }
    return null;
  }
}
