package io.watukuy;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * What a {@link Fetcher} receives for one page request. Valid only during that fetch call, on the
 * thread running it.
 *
 * @param <C> the cursor type of the poller's strategy
 * @since 0.1
 */
public interface FetchContext<C> {

  /**
   * The cursor to fetch with: a {@link Watermark} (timestamp; with overlap, the value minus the
   * overlap and a null tie-break), a token string or null (token), the page number (page), null
   * (snapshotDiff), or the user's cursor (custom).
   *
   * <p>Before the lane's first commit, a timestamp request carries the initial value exactly,
   * without overlap.
   *
   * @return the cursor; null for snapshotDiff, and for the token strategy while it has no token
   */
  @Nullable C cursor();

  /**
   * The index of this request within the cycle's lane; use it to page a snapshotDiff.
   *
   * @return 1 for the first request of the cycle, then 2, 3, … up to {@link
   *     Poller#maxPagesPerCycle()}
   */
  int page();

  /**
   * The poller name.
   *
   * @return {@link Poller#name()}
   */
  String poller();

  /**
   * The partition this request is for.
   *
   * @return the partition, {@code ""} when unpartitioned
   */
  String partition();

  /**
   * The lane this fetch belongs to; it is also the priority of its requests in a shared rate budget
   * (live first, then reconcile, then backfill).
   *
   * @return {@link Lane#LIVE}, {@link Lane#RECONCILE} or {@link Lane#BACKFILL}
   */
  Lane lane();

  /**
   * The attempt of this page within the cycle.
   *
   * @return 1: a failed fetch ends the cycle, and the page is requested again by a later cycle
   */
  int attempt();

  /**
   * The HTTP helper for this fetch: JSON GET/POST/PUT on the JDK client, ETag / Last-Modified
   * validators kept per URL in the store, secrets redacted in errors, Retry-After and RateLimit
   * headers recorded for the scheduler; every request takes a token of the poller's rate budget
   * first, when it names one (see {@link Http}).
   *
   * @return the helper, created on first call and the same object for the rest of this fetch
   */
  Http http();

  /**
   * Tells the fetch to end early: the engine stops without drain, or the tick deadline passed.
   *
   * @return the token; check it in loops and before long waits
   */
  CancellationToken cancellation();

  /**
   * A logger named after the poller.
   *
   * @return the SLF4J logger {@code io.watukuy.poller.<name>}
   */
  Logger logger();
}
