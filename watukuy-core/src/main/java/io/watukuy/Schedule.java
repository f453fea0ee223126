package io.watukuy;

import java.time.Duration;
import java.util.Objects;

/**
 * When a poller's live lane runs (docs/architecture.md, "Poller state machine"). The interval
 * starts at {@code min}; a cycle with events halves it (floor {@code min}), an idle cycle (a 304
 * included) multiplies it by 1.5 (cap {@code max}); {@code adaptive(false)} pins it at {@code min}.
 * Every wait gets symmetric jitter of {@code jitter} (a wait w becomes w × (1 + jitter × u), u
 * uniform in [-1, 1]); RateLimit headers stretch it to (reset − now) / max(remaining, 1); a
 * truncated listing is due again at once (catch-up, still paced); fetch errors back off by {@code
 * backoff} (full jitter) and open the circuit after {@link CircuitPolicy#failures()} in a row; a
 * 429, or a 503 with Retry-After, waits exactly as told.
 *
 * @param min the shortest interval, default {@value #DEFAULT_MIN_SECONDS} s, positive
 * @param max the longest interval, default 10 min, at least {@code min}
 * @param jitter symmetric jitter fraction in [0, 1), default 0.1
 * @param adaptive AIMD on (default) or the interval pinned at {@code min}
 * @param backoff poll-error backoff, default {@link Backoff#DEFAULT_POLL}
 * @since 0.1
 */
public record Schedule(
    Duration min, Duration max, double jitter, boolean adaptive, Backoff backoff) {
  /** Default {@code min} in seconds (docs/architecture.md, "Defaults"). */
  public static final long DEFAULT_MIN_SECONDS = 30;

  /** Default {@code min}: 30 s. */
  public static final Duration DEFAULT_MIN = Duration.ofSeconds(DEFAULT_MIN_SECONDS);

  /** Default {@code max}: 10 min (docs/architecture.md, "Defaults"). */
  public static final Duration DEFAULT_MAX = Duration.ofMinutes(10);

  /** Default {@code jitter}: 0.1, that is ±10 % (docs/architecture.md, "Defaults"). */
  public static final double DEFAULT_JITTER = 0.1;

  /** Default {@code adaptive}: on (docs/architecture.md, "Defaults"). */
  public static final boolean DEFAULT_ADAPTIVE = true;

  /** min 30 s, max 10 min, jitter 0.1, adaptive, default backoff. */
  public static final Schedule DEFAULT =
      new Schedule(
          DEFAULT_MIN, DEFAULT_MAX, DEFAULT_JITTER, DEFAULT_ADAPTIVE, Backoff.DEFAULT_POLL);

  /**
   * Validates the settings.
   *
   * @param min the shortest interval; positive
   * @param max the longest interval, and the circuit's probe delay; at least {@code min}
   * @param jitter symmetric jitter fraction in [0, 1)
   * @param adaptive AIMD on or off
   * @param backoff poll-error backoff
   * @throws NullPointerException if {@code min}, {@code max} or {@code backoff} is null
   * @throws ConfigException if a value is out of range; the message names the field and the value
   */
  public Schedule {
    Objects.requireNonNull(min, "min");
    Objects.requireNonNull(max, "max");
    Objects.requireNonNull(backoff, "backoff");
    if (min.isNegative() || min.isZero())
      throw new ConfigException("schedule.min must be > 0, but was " + min);
    if (max.compareTo(min) < 0)
      throw new ConfigException(
          "schedule.max must be >= schedule.min (" + min + "), but was " + max);
    if (!(jitter >= 0 && jitter < 1))
      throw new ConfigException("schedule.jitter must be in [0, 1), but was " + jitter);
  }

  /**
   * The default schedule with another {@code min}, and {@code max} raised to it if needed.
   *
   * @param min the interval of the live lane; positive
   * @return the schedule
   * @throws ConfigException if {@code min} is zero or negative
   */
  public static Schedule every(Duration min) {
    Duration max = DEFAULT_MAX.compareTo(min) < 0 ? min : DEFAULT_MAX;
    return new Schedule(min, max, DEFAULT_JITTER, DEFAULT_ADAPTIVE, Backoff.DEFAULT_POLL);
  }

  /**
   * This schedule with another {@code max}.
   *
   * @param max the longest interval and the circuit's probe delay; at least {@code min}
   * @return a new schedule; this one is unchanged
   * @throws ConfigException if {@code max} is below {@code min}
   */
  public Schedule withMax(Duration max) {
    return new Schedule(min, max, jitter, adaptive, backoff);
  }

  /**
   * This schedule with another {@code jitter}.
   *
   * @param jitter symmetric jitter fraction in [0, 1)
   * @return a new schedule; this one is unchanged
   * @throws ConfigException if {@code jitter} is outside [0, 1)
   */
  public Schedule withJitter(double jitter) {
    return new Schedule(min, max, jitter, adaptive, backoff);
  }

  /**
   * This schedule with AIMD on or off.
   *
   * @param adaptive {@code false} pins the interval at {@code min}
   * @return a new schedule; this one is unchanged
   */
  public Schedule withAdaptive(boolean adaptive) {
    return new Schedule(min, max, jitter, adaptive, backoff);
  }

  /**
   * This schedule with another poll-error backoff.
   *
   * @param backoff the backoff after a failed cycle
   * @return a new schedule; this one is unchanged
   * @throws NullPointerException if {@code backoff} is null
   */
  public Schedule withBackoff(Backoff backoff) {
    return new Schedule(min, max, jitter, adaptive, backoff);
  }
}
