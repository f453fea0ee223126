package io.watukuy;

import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.StateStore;
import java.time.Duration;
import java.util.Objects;

/**
 * The optional replay log of a poller: when enabled, every event is also appended to the store's
 * log in the same transaction as its outbox row ({@link CommitBatch#log()}), and stays there after
 * it is delivered.
 *
 * <p>In this release nothing prunes the log by itself: {@code retention} is validated and kept, and
 * {@link StateStore#pruneLog} removes old entries when called.
 *
 * @param enabled whether events are logged; default false
 * @param retention how long logged events are meant to be kept; default 7 days, positive
 * @since 0.1
 */
public record EventLog(boolean enabled, Duration retention) {
  /** Default retention: 7 days (docs/architecture.md, "Defaults"). */
  public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);

  /** No log; the default of every poller. */
  public static final EventLog DISABLED = new EventLog(false, DEFAULT_RETENTION);

  /**
   * Validates the settings.
   *
   * @param enabled whether events are logged
   * @param retention how long logged events are meant to be kept; positive
   * @throws NullPointerException if {@code retention} is null
   * @throws ConfigException if {@code retention} is zero or negative
   */
  public EventLog {
    Objects.requireNonNull(retention, "retention");
    if (retention.isNegative() || retention.isZero())
      throw new ConfigException("log.retention must be > 0, but was " + retention);
  }

  /**
   * An enabled log.
   *
   * @param retention how long logged events are meant to be kept; positive
   * @return the setting
   * @throws ConfigException if {@code retention} is zero or negative
   */
  public static EventLog keep(Duration retention) {
    return new EventLog(true, retention);
  }
}
