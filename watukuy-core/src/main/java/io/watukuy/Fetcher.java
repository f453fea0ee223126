package io.watukuy;

/**
 * Fetches one page for a poller: the user's call to the third-party API.
 *
 * <p>Anything it throws ends the cycle with a {@link FetchException} naming the poller, partition
 * and page; nothing of that page is committed and the cursor does not move. An {@link
 * HttpStatusException} with status 429 (or 503 with Retry-After) throttles the key instead of
 * counting as a failure.
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
}
