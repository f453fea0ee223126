package io.watukuy.testing;

import io.watukuy.FetchContext;
import io.watukuy.Fetcher;
import io.watukuy.Lane;
import io.watukuy.Page;
import io.watukuy.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A {@link Fetcher} that records every page it fetched, then hands it on: which page of which lane,
 * with which cursor, at which instant of the engine's clock, on which thread, and how many items it
 * returned. Lets a test see the order and the timing of requests, and whether a page was fetched
 * ahead (docs/architecture.md, "A page ahead") on another thread than the cycle's. Keeps {@link
 * Fetcher#prefetch()} of the fetch it wraps. It reads {@link FetchContext#page()}, so the engine
 * counts the page number as part of each request (docs/operations.md, "Stalled lanes"): a fetch
 * whose stall a test checks is not wrapped. Thread-safe.
 *
 * @param <T> the item type
 * @param <C> the cursor type
 * @since 0.1
 */
public final class RecordingFetcher<T, C> implements Fetcher<T, C> {

  /**
   * One page fetched.
   *
   * @param lane the lane it was fetched for
   * @param page the 1-based page of the lane's cycle
   * @param cursor the cursor handed to fetch, as {@code String.valueOf}
   * @param at the engine's clock when the fetch returned
   * @param thread the name of the thread that fetched it
   * @param items the items of the page; -1 when fetch threw
   */
  public record Call(Lane lane, int page, String cursor, Instant at, String thread, int items) {}

  private final Fetcher<T, C> fetch;
  private final TimeSource time;
  private final Object lock = new Object();
  // Guarded by lock.
  private final List<Call> calls = new ArrayList<>();

  private RecordingFetcher(Fetcher<T, C> fetch, TimeSource time) {
    this.fetch = Objects.requireNonNull(fetch, "fetch");
    this.time = Objects.requireNonNull(time, "time");
  }

  /**
   * Records the calls of {@code fetch}.
   *
   * @param fetch the fetch that does the work
   * @param time the engine's clock, read when each fetch returns
   * @param <T> the item type
   * @param <C> the cursor type
   * @return the recording fetch
   * @throws NullPointerException if an argument is null
   */
  public static <T, C> RecordingFetcher<T, C> of(Fetcher<T, C> fetch, TimeSource time) {
    return new RecordingFetcher<>(fetch, time);
  }

  @Override
  public Page<T> fetch(FetchContext<C> ctx) throws Exception {
    Page<T> page = null;
    try {
      page = fetch.fetch(ctx);
      return page;
    } finally {
      Call call =
          new Call(
              ctx.lane(),
              ctx.page(),
              String.valueOf(ctx.cursor()),
              time.now(),
              Thread.currentThread().getName(),
              page == null ? -1 : page.items().size());
      synchronized (lock) {
        calls.add(call);
        lock.notifyAll();
      }
    }
  }

  @Override
  public boolean prefetch() {
    return fetch.prefetch();
  }

  /**
   * The pages fetched so far, in the order their fetches returned.
   *
   * @return an immutable copy
   */
  public List<Call> calls() {
    synchronized (lock) {
      return List.copyOf(calls);
    }
  }

  /**
   * The pages fetched so far, each as {@code lane/page}, for example {@code live/2}.
   *
   * @return an immutable list, in the order the fetches returned
   */
  public List<String> pages() {
    synchronized (lock) {
      return calls.stream().map(c -> c.lane().wire() + "/" + c.page()).toList();
    }
  }

  /** Forgets the calls recorded so far. */
  public void clear() {
    synchronized (lock) {
      calls.clear();
    }
  }

  /**
   * Waits, in real time, until at least {@code count} fetches have returned: lets a store call that
   * blocks the cycle's thread find out whether a page was fetched meanwhile on another thread,
   * without a real sleep. Uses a monitor, not polling.
   *
   * @param count how many returned fetches to wait for
   * @param timeout the longest real time to wait
   * @return whether {@code count} fetches returned before the timeout
   * @throws InterruptedException if the calling thread is interrupted while waiting
   */
  public boolean awaitCalls(int count, Duration timeout) throws InterruptedException {
    Objects.requireNonNull(timeout, "timeout");
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lock) {
      while (calls.size() < count) {
        long left = deadline - System.nanoTime();
        if (left <= 0) return false;
        lock.wait(Math.max(1, (left + 999_999) / 1_000_000));
      }
      return true;
    }
  }

  @Override
  public String toString() {
    return "RecordingFetcher[" + fetch + "]";
  }
}
