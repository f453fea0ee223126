package io.watukuy.sink.webhook;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * A {@code Retry-After} header (RFC 9110, section 10.2.3): whole seconds to wait, or an HTTP date
 * to wait for, as the wait from now.
 */
final class RetryAfterHeader {
  private RetryAfterHeader() {}

  /**
   * The wait the header asks for.
   *
   * @param value the header value
   * @param now the current time, for an HTTP date
   * @return the wait, zero for a date in the past; empty when the value is neither form (then the
   *     retry policy's backoff alone applies)
   */
  static Optional<Duration> parse(String value, Instant now) {
    String v = value.strip();
    if (!v.isEmpty() && v.chars().allMatch(Character::isDigit)) {
      // More digits than a long holds is a wait longer than anyone means: the date form's cap.
      if (v.length() > 12) return Optional.empty();
      return Optional.of(Duration.ofSeconds(Long.parseLong(v)));
    }
    try {
      Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      return Optional.of(at.isAfter(now) ? Duration.between(now, at) : Duration.ZERO);
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
