package io.watukuy.internal;

import io.watukuy.Fetcher;
import io.watukuy.Page;
import io.watukuy.PollerKey;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * One page of a lane fetched ahead (docs/architecture.md, "A page ahead"): page n+1, requested on
 * the engine's cycle executor while the cycle's thread commits and delivers page n. The page loop
 * then either takes it ({@link #take}) or drops it unseen ({@link #discard}); nothing of it reaches
 * the run before it is taken, so a commit that fails, a lost lease or a stop leave the run exactly
 * as a cycle without prefetch would.
 *
 * <p>Whoever comes first runs the fetch: a pool thread that picks the task up, or the cycle's
 * thread when it needs the page and no thread has started it yet (a busy pool, or an executor that
 * rejected the task). So a cycle never waits for a queue, a bounded pool can never deadlock on its
 * own prefetches, and no thread is added to the executor's. An executor that runs the task on the
 * cycle's own thread ({@code Runnable::run}) gets a cycle without prefetch: the task declines, and
 * the cycle's thread fetches after the commit, as before.
 *
 * <p>Memory (G10): one prefetch per lane at a time, so a key holds at most the page it commits and
 * the page it fetches.
 */
final class Prefetch implements Runnable {
  private enum State {
    /** Submitted; no thread runs it yet. */
    NEW,
    /** A pool thread runs the fetch. */
    RUNNING,
    /** The result is in. */
    DONE,
    /** The cycle's thread took the task over before a pool thread started it. */
    CLAIMED,
    /** Dropped unseen. */
    DISCARDED
  }

  /** What one call of fetch gave: a page, or what it threw. */
  record Fetched(@Nullable Page<Object> page, @Nullable Exception error) {

    /** Calls {@code fetch} on this thread; an interrupt is kept on the thread for its owner. */
    static Fetched call(Fetcher<Object, Object> fetch, FetchScope scope) {
      try {
        return new Fetched(fetch.fetch(scope), null);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new Fetched(null, e);
      } catch (Exception e) {
        return new Fetched(null, e);
      }
    }
  }

  // The key whose page this pool thread fetches ahead, while it does: an operation that fetch code
  // calls must see it in the key's cycle, as on the cycle's own thread (Engine.inCycleHere).
  private static final ThreadLocal<PollerKey> FETCHING = new ThreadLocal<>();

  private final PollerKey key;
  private final Fetcher<Object, Object> fetch;
  private final FetchScope scope;
  private final @Nullable Object sent;
  private final int pageNo;
  private final Thread owner;
  private final Object lock = new Object();

  // Guarded by lock.
  private State state = State.NEW;
  // Guarded by lock. The pool thread running the fetch, interrupted only while it runs it.
  private @Nullable Thread runner;
  // Guarded by lock.
  private @Nullable Fetched result;
  // Guarded by lock. An Error (out of memory) of the fetch, rethrown on the cycle's thread.
  private @Nullable Error error;

  private Prefetch(
      PollerKey key,
      Fetcher<Object, Object> fetch,
      FetchScope scope,
      @Nullable Object sent,
      int pageNo) {
    this.key = key;
    this.fetch = fetch;
    this.scope = scope;
    this.sent = sent;
    this.pageNo = pageNo;
    this.owner = Thread.currentThread();
  }

  /**
   * Hands the fetch of page {@code pageNo} to {@code executor}. Called on the cycle's thread, which
   * becomes the owner that takes or drops the page.
   */
  static Prefetch start(
      Executor executor,
      PollerKey key,
      Fetcher<Object, Object> fetch,
      FetchScope scope,
      @Nullable Object sent,
      int pageNo) {
    Prefetch p = new Prefetch(key, fetch, scope, sent, pageNo);
    try {
      executor.execute(p);
    } catch (RejectedExecutionException e) {
      // A closed or saturated executor: the cycle's thread fetches the page when it needs it.
    }
    return p;
  }

  /** The key whose page this thread fetches ahead now, or null. */
  static @Nullable PollerKey fetchingFor() {
    return FETCHING.get();
  }

  /** The scope the page is fetched through. */
  FetchScope scope() {
    return scope;
  }

  /** The cursor the page is requested with. */
  @Nullable Object sent() {
    return sent;
  }

  /** The page number within the lane's cycle. */
  int pageNo() {
    return pageNo;
  }

  @Override
  public void run() {
    Thread me = Thread.currentThread();
    // Run by the cycle's own thread inside execute() (a direct executor): a page ahead would gain
    // nothing there and only delay the commit; the cycle fetches it after the commit instead.
    if (me == owner) return;
    synchronized (lock) {
      if (state != State.NEW) return; // taken over or dropped while queued
      state = State.RUNNING;
      runner = me;
    }
    Fetched fetched = null;
    Error failed = null;
    FETCHING.set(key);
    try {
      fetched = Fetched.call(fetch, scope);
    } catch (Error e) {
      failed = e;
    } finally {
      FETCHING.remove();
      synchronized (lock) {
        if (state == State.RUNNING) {
          state = State.DONE;
          result = fetched;
          error = failed;
        }
        runner = null;
        lock.notifyAll();
      }
      // An interrupt meant for this fetch (a drop) must not reach the pool's next task. No new one
      // can come: interrupts are sent under the lock, and only while runner is set.
      Thread.interrupted();
    }
  }

  /**
   * The page, on the cycle's thread: waits for the pool thread that fetches it, or fetches it here
   * when none has started.
   *
   * @throws InterruptedException if interrupted while waiting; the page is then dropped
   */
  Fetched take() throws InterruptedException {
    boolean here;
    synchronized (lock) {
      if (state == State.NEW) state = State.CLAIMED;
      here = state == State.CLAIMED;
    }
    if (here) return Fetched.call(fetch, scope);
    synchronized (lock) {
      try {
        while (state == State.RUNNING) lock.wait();
      } catch (InterruptedException e) {
        discardLocked();
        throw e;
      }
      if (error != null) throw error;
      Fetched r = result;
      result = null;
      if (r == null) throw new IllegalStateException("page " + pageNo + " fetched ahead is gone");
      return r;
    }
  }

  /**
   * Drops the page unseen: a fetch not yet started never runs, a running one is cancelled (its
   * token, its budget wait, an interrupt) and waited for, so that no request of the run is still
   * out once its lease is released and no third page of the key is held. A fetch that ignores the
   * cancellation is waited for until it returns, as a cycle without prefetch would wait for it.
   */
  void discard() {
    boolean interrupted = false;
    synchronized (lock) {
      discardLocked();
      while (runner != null) {
        try {
          lock.wait();
        } catch (InterruptedException e) {
          interrupted = true;
          break;
        }
      }
    }
    if (interrupted) Thread.currentThread().interrupt();
  }

  // Caller holds lock.
  private void discardLocked() {
    if (state == State.CLAIMED) return; // fetched by the cycle's thread itself: nothing runs
    state = State.DISCARDED;
    result = null;
    error = null;
    scope.discard();
    if (runner != null) runner.interrupt();
  }
}
