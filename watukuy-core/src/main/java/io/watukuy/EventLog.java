package io.watukuy;

import java.time.Duration;
import java.util.Objects;

/**
 * The optional replay log of a poller: committed events are also appended to the log and kept
 * for {@code retention}.
 *
 * @param enabled default false
 * @param retention default 7 days, positive
 * @since 0.1
 */
public record EventLog(boolean enabled, Duration retention) {
  public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);
  public static final EventLog DISABLED = new EventLog(false, DEFAULT_RETENTION);

  public EventLog {
    Objects.requireNonNull(retention, "retention");
    if (retention.isNegative() || retention.isZero())
      throw new ConfigException("log.retention must be > 0, but was " + retention);
  }

  public static EventLog keep(Duration retention) {
    return new EventLog(true, retention);
  }
}
