package io.watukuy.cli;

import io.watukuy.StoreException;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * How the daemon opens its store when the store's server is not up yet (a Redis or database that
 * starts after watukuy, the ordinary boot-order case): it tries again with backoff instead of
 * exiting, as it does for a store that goes down later (docs/config.md, "Top level": the store
 * outage paragraph). One line when the first attempt fails, one when the store opens; {@code run
 * --once} does not wait (cron runs it again).
 */
final class StoreStartup {
  /** The first wait; each next one doubles, up to {@link #MAX_WAIT}. */
  static final Duration FIRST_WAIT = Duration.ofSeconds(1);

  static final Duration MAX_WAIT = Duration.ofSeconds(60);

  /** Sleeps; {@code Thread::sleep} in the daemon, a recorder in tests. */
  interface Sleeper {
    void sleep(long millis) throws InterruptedException;
  }

  private StoreStartup() {}

  /**
   * Returns what {@code open} returns, calling it again after 1 s, 2 s, 4 s … 60 s (then every 60
   * s) for as long as it throws {@link StoreException}; any other exception (a config error) is
   * thrown at once.
   *
   * @param open opens the store (and what is built over it)
   * @param say takes the two lines: the failure, then the recovery
   * @param sleeper waits between attempts; SIGTERM during a wait ends the JVM as usual
   * @throws InterruptedException if the wait is interrupted
   */
  static <T> T await(Supplier<T> open, Consumer<String> say, Sleeper sleeper)
      throws InterruptedException {
    long wait = FIRST_WAIT.toMillis();
    boolean failing = false;
    while (true) {
      try {
        T opened = open.get();
        if (failing) say.accept("store opened, starting");
        return opened;
      } catch (StoreException e) {
        if (!failing)
          say.accept(e.getMessage() + "; the store is not reachable yet, retrying with backoff");
        failing = true;
      }
      sleeper.sleep(wait);
      wait = Math.min(wait * 2, MAX_WAIT.toMillis());
    }
  }
}
