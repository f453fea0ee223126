package io.watukuy.internal;

import io.watukuy.Backoff;
import io.watukuy.HandlerUnavailableException;
import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import io.watukuy.Watukuy;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's keys (or partition listings) whose last attempt met a store that is down or refuses
 * ({@link StoreException}) or a destination that is down ({@link HandlerUnavailableException}), and
 * when to try each again (docs/architecture.md, "Outages"). Such an error is no fetch error, so the
 * state machine does not count it, and the store may not take a count anyway: without this the
 * daemon tried the key at every pass, every {@code schedule.min}. The wait after the n-th failure
 * in a row is the poller's {@code schedule.backoff} with full jitter, as for a fetch error; the
 * count lives in memory and is lost at a restart, which starts again at one.
 *
 * <p>One warning when a key starts failing (or fails in another way) and one line when it recovers,
 * on the error logger; the attempts in between log at debug.
 */
final class Outages {
  private static final Logger errors = LoggerFactory.getLogger(Watukuy.ERROR_LOGGER);

  /** A key that is failing: what failed ({@code store} or {@code destination}) and how often. */
  record Outage(String what, int failures) {}

  private final RandomGenerator random;
  private final Map<PollerKey, Outage> failing = new ConcurrentHashMap<>();

  /**
   * @param random the engine's injected generator, for the full jitter
   */
  Outages(RandomGenerator random) {
    this.random = random;
  }

  /**
   * What an error says is down: {@code "store"} for a {@link StoreException}, {@code "destination"}
   * for a {@link HandlerUnavailableException} (in the cause chain, or suppressed by the error a
   * cycle reports), else null (a fetch error, which the state machine backs off).
   */
  static @Nullable String kind(@Nullable Throwable error) {
    if (error == null) return null;
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof StoreException) return "store";
      if (t instanceof HandlerUnavailableException) return "destination";
      if (t.getCause() == t) break;
    }
    for (Throwable s : error.getSuppressed()) {
      if (s instanceof StoreException) return "store";
    }
    return null;
  }

  /**
   * Records how an attempt on {@code key} ended.
   *
   * @param who how log lines name the key, e.g. {@code poller orders partition eu}
   * @param backoff the poller's {@code schedule.backoff}
   * @param error the error the attempt ended with, or null
   * @param now the engine's clock
   * @return when to try the key again, or null when the attempt met no outage
   */
  @Nullable Instant after(
      PollerKey key, String who, Backoff backoff, @Nullable Throwable error, Instant now) {
    String what = kind(error);
    if (what == null) {
      Outage was = failing.remove(key);
      if (was != null)
        errors.info(
            "{}: {} recovered after {} failed attempt{}",
            who,
            was.what(),
            was.failures(),
            was.failures() == 1 ? "" : "s");
      return null;
    }
    Outage was = failing.get(key);
    int failures = was == null ? 1 : saturated(was.failures() + 1);
    Instant retry;
    synchronized (random) {
      retry = now.plus(backoff.delay(failures, random));
    }
    failing.put(key, new Outage(what, failures));
    String message = error == null ? "" : String.valueOf(error.getMessage());
    if (was == null || !was.what().equals(what))
      errors.warn("{}: {} failing, retrying with backoff: {}", who, what, message);
    else errors.debug("{}: {} still failing (attempt {}): {}", who, what, failures, message);
    return retry;
  }

  /** The outage of {@code key}, or null when its last attempt met none. */
  @Nullable Outage of(PollerKey key) {
    return failing.get(key);
  }

  private static int saturated(int n) {
    return n < 0 ? Integer.MAX_VALUE : n;
  }
}
