package io.watukuy.sink.webhook;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A rule a 2xx response's body must meet for the request to count as delivered (the {@code success:
 * {pointer: /status, equals: "ok"}} setting; docs/sinks.md, "Webhooks"): for receivers that answer
 * 200 with an error in the body. The value at {@code pointer} must be a string, number or boolean
 * whose text equals {@code equals}.
 *
 * @param pointer a JSON Pointer (RFC 6901), e.g. {@code /status}
 * @param equals the text the value must have, e.g. {@code ok}
 * @since 0.2
 */
public record SuccessRule(String pointer, String equals) {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /**
   * Checks the pointer.
   *
   * @param pointer a JSON Pointer
   * @param equals the expected text
   * @throws IllegalArgumentException if {@code pointer} is not a JSON Pointer
   * @throws NullPointerException if an argument is null
   */
  public SuccessRule {
    Objects.requireNonNull(pointer, "pointer");
    Objects.requireNonNull(equals, "equals");
    JsonPointer.compile(pointer);
  }

  /**
   * Why the body fails the rule.
   *
   * @param body the response body, UTF-8 JSON
   * @return null when the body meets the rule, else what was found instead (at most 100 characters
   *     of the value)
   */
  public @Nullable String violation(byte[] body) {
    JsonNode root;
    try {
      root = MAPPER.readTree(body);
    } catch (IOException e) {
      return "the body is not JSON";
    }
    if (root == null) return "the body is empty";
    JsonNode value = root.at(pointer);
    if (value.isMissingNode()) return pointer + " is missing";
    if (value.isValueNode() && !value.isNull() && value.asText().equals(equals)) return null;
    String found = value.isValueNode() ? value.asText() : value.toString();
    if (found.length() > 100) found = found.substring(0, 100) + "...";
    return pointer + " is \"" + found + "\", not \"" + equals + "\"";
  }
}
