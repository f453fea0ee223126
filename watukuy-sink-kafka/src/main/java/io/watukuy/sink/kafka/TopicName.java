package io.watukuy.sink.kafka;

import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Kafka's rule for a topic name, checked before a record is sent to a name built from a template
 * (docs/sinks.md, "Kafka"): 1 to 249 characters of {@code [a-zA-Z0-9._-]}, and neither {@code .}
 * nor {@code ..}. The broker would refuse another name; checking here says which template and which
 * key made it.
 */
final class TopicName {
  /** The longest topic name Kafka accepts. */
  static final int MAX_LENGTH = 249;

  private static final Pattern LEGAL = Pattern.compile("[a-zA-Z0-9._-]+");

  private TopicName() {}

  /**
   * What is wrong with a topic name.
   *
   * @param topic a rendered topic name
   * @return why it is not a legal topic name, or null when it is one
   */
  static @Nullable String problem(String topic) {
    if (topic.isEmpty()) return "a topic name cannot be empty";
    if (topic.equals(".") || topic.equals(".."))
      return "'" + topic + "' cannot be a topic name ('.' and '..' are refused)";
    if (topic.length() > MAX_LENGTH)
      return "topic name '"
          + topic
          + "' is "
          + topic.length()
          + " characters long, at most "
          + MAX_LENGTH
          + " allowed";
    if (!LEGAL.matcher(topic).matches())
      return "topic name '" + topic + "' may only hold letters, digits, '.', '_' and '-'";
    return null;
  }
}
