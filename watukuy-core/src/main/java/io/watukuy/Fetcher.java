package io.watukuy;

import java.util.Objects;

/**
 * Fetches one page for a poller: the user's call to the third-party API.
 *
 * <p>Anything it throws ends the cycle with a {@link FetchException} naming the poller, partition
 * and page; nothing of that page is committed and the cursor does not move. An {@link
 * HttpStatusException} with status 429 (or 503 with Retry-After) throttles the key instead of
 * counting as a failure.
 *
 * <p>A page ahead (docs/architecture.md, "A page ahead"): while page n of a lane is committed and
 * delivered, the engine may already call this fetch for page n+1, on another thread of its cycle
 * executor, with the cursor page n's commit stores. Calls for one key never overlap each other and
 * come in page order, each seeing what the previous one did (happens-before), but a call may run
 * while the handlers of the page before it still run. Fetch code that must run after those
 * handlers, or on the cycle's own thread (it reads what a handler wrote, or a thread-local), is
 * wrapped in {@link #sequential(Fetcher)}.
 *
 * @param <T> the item type
 * @param <C> the cursor type of the poller's strategy
 * @since 0.1
 */
@FunctionalInterface
public interface Fetcher<T, C> {
  /**
   * @param ctx the cursor, the 1-based page index within the cycle, the partition, the lane, the
   *     HTTP helper and a cancellation token
   * @return the page; never null
   * @throws Exception to fail the cycle
   */
  Page<T> fetch(FetchContext<C> ctx) throws Exception;

  /**
   * Whether the engine may fetch the next page of a lane with this fetch while the page before it
   * is committed and delivered (docs/architecture.md, "A page ahead"). The page fetched ahead is
   * requested with the cursor the commit stores, takes its rate-budget token like any request, and
   * is dropped unseen when the commit fails, the lease is lost or the engine stops.
   *
   * @return {@code true} by default; {@code false} for a fetch made with {@link #sequential}
   */
  default boolean prefetch() {
    return true;
  }

  /**
   * {@code fetch}, never called a page ahead: each page is requested only after the page before it
   * was committed and its events delivered, on the cycle's own thread, as in a cycle without
   * prefetch. For fetch code whose request depends on what the previous page's handlers did, or
   * that reads thread-local state of the cycle's thread. Costs the overlap of one request with one
   * commit and delivery per page.
   *
   * @param fetch the fetch to wrap
   * @param <T> the item type
   * @param <C> the cursor type
   * @return a fetch that calls {@code fetch} and answers {@code false} to {@link #prefetch()}
   * @throws NullPointerException if {@code fetch} is null
   */
  static <T, C> Fetcher<T, C> sequential(Fetcher<T, C> fetch) {
    Objects.requireNonNull(fetch, "fetch");
    return new Fetcher<>() {
      @Override
      public Page<T> fetch(FetchContext<C> ctx) throws Exception {
        return fetch.fetch(ctx);
      }

      @Override
      public boolean prefetch() {
        return false;
      }

      @Override
      public String toString() {
        return "sequential(" + fetch + ")";
      }
    };
  }
}
