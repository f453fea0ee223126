package io.watukuy.sink;

import io.watukuy.PollerKey;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A destination name that may vary by key: a topic, routing key, subject, URL or table written with
 * {@code {{source}}} (the poller's name) and {@code {{partition}}} (the partition, empty when the
 * poller has none). Only these two: a placeholder that varies within a key (the identity, the
 * ordering key, the type) would split one ordering key's events across destinations, and order
 * holds only within one (G3). Immutable.
 *
 * <p>A sink checks the rendered name against its destination's rules (a Kafka topic's characters, a
 * table name's quoting) before it writes to it.
 *
 * @since 0.2
 */
public final class Destination {
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{\\s*([^}]*?)\\s*}}");

  private final String template;
  private final boolean constant;

  private Destination(String template, boolean constant) {
    this.template = template;
    this.constant = constant;
  }

  /**
   * Parses a template.
   *
   * @param template e.g. {@code orders.{{partition}}}
   * @return the destination
   * @throws IllegalArgumentException for an empty template or another placeholder, saying which two
   *     are allowed and why
   */
  public static Destination parse(String template) {
    Objects.requireNonNull(template, "template");
    if (template.isBlank()) throw new IllegalArgumentException("is empty");
    Matcher m = PLACEHOLDER.matcher(template);
    boolean constant = true;
    while (m.find()) {
      String name = m.group(1);
      if (!name.equals("source") && !name.equals("partition"))
        throw new IllegalArgumentException(
            "'{{"
                + name
                + "}}' cannot name a destination: only {{source}} and {{partition}}, which keep"
                + " all of one key's events in one place (order holds only within one)");
      constant = false;
    }
    return new Destination(template, constant);
  }

  /**
   * The name for one key's events.
   *
   * @param key the poller and partition
   * @return the template with its placeholders replaced
   */
  public String render(PollerKey key) {
    if (constant) return template;
    Matcher m = PLACEHOLDER.matcher(template);
    StringBuilder out = new StringBuilder();
    while (m.find())
      m.appendReplacement(
          out,
          Matcher.quoteReplacement(m.group(1).equals("source") ? key.poller() : key.partition()));
    m.appendTail(out);
    return out.toString();
  }

  /**
   * Whether the template holds a placeholder.
   *
   * @param variable {@code source} or {@code partition}
   * @return true when {@code {{variable}}} appears
   */
  public boolean uses(String variable) {
    Matcher m = PLACEHOLDER.matcher(template);
    while (m.find()) if (m.group(1).equals(variable)) return true;
    return false;
  }

  /**
   * Whether the name is the same for every key.
   *
   * @return true when the template has no placeholder
   */
  public boolean isConstant() {
    return constant;
  }

  /**
   * The template as written.
   *
   * @return the template
   */
  @Override
  public String toString() {
    return template;
  }
}
