package io.watukuy.admin;

import io.watukuy.PollerKey;
import io.watukuy.Watukuy;
import io.watukuy.spi.StateStore;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * {@code /health/ready}: the engine runs ({@link Watukuy#running()}) and the store answered one
 * cheap read within the timeout. A vendor outage never makes it unready ({@code /health/pollers}
 * says that), so a deploy is not held back by someone else's API.
 */
final class Readiness implements AutoCloseable {
  /** A key no poller has: its lease lookup is one indexed read that finds nothing. */
  private static final PollerKey PROBE = PollerKey.of("watukuy-admin-ready-probe");

  private final Watukuy engine;
  private final @Nullable StateStore store;
  private final Duration timeout;
  // One thread: a store that hangs holds one probe, and the next probe waits behind it and times
  // out too, instead of piling up threads.
  private final ExecutorService probes =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "watukuy-admin-ready");
            t.setDaemon(true);
            return t;
          });

  Readiness(Watukuy engine, @Nullable StateStore store, Duration timeout) {
    this.engine = engine;
    this.store = store;
    this.timeout = timeout;
  }

  /**
   * Why the engine is not ready.
   *
   * @return null when ready, else one line
   */
  @Nullable String problem() {
    if (!engine.running()) return "engine not running";
    Future<?> probe =
        probes.submit(
            () -> {
              if (store != null) store.getLease(PROBE);
              else engine.inspect();
              return null;
            });
    try {
      probe.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return null;
    } catch (TimeoutException e) {
      probe.cancel(true);
      return "store did not answer within " + timeout.toMillis() + " ms";
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      return "store unreachable: " + cause.getClass().getSimpleName() + ": " + cause.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  @Override
  public void close() {
    probes.shutdownNow();
  }
}
