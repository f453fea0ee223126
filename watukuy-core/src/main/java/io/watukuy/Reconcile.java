package io.watukuy;

import java.time.Duration;
import java.util.Objects;

/**
 * The reconcile lane of an incremental poller (docs/architecture.md, "Reconcile: deletes for
 * incremental strategies"): every {@code every}, a full listing with its own paged {@code fetch}
 * ({@link FetchContext#page()} from 1; the cursor handed to it is the page number) emits created
 * for unknown identities, updated for changed ones and, when the listing completed, deleted for
 * stored identities it did not list. Events carry lane {@code reconcile}. The first reconcile runs
 * on the first cycle.
 *
 * @param every time between completed reconciles, positive
 * @param fetch the paged full listing; {@code hasMore(true)} asks for the next page
 * @param <T> the item type
 * @since 0.1
 */
public record Reconcile<T>(Duration every, Fetcher<T, Integer> fetch) {
  /**
   * @throws ConfigException if {@code every} is not positive
   */
  public Reconcile {
    Objects.requireNonNull(every, "every");
    Objects.requireNonNull(fetch, "fetch");
    if (every.isNegative() || every.isZero())
      throw new ConfigException("reconcile.every must be > 0, but was " + every);
  }

  /**
   * A reconcile lane.
   *
   * @param every time between completed reconciles
   * @param fetch the paged full listing
   * @param <T> the item type
   * @return the lane settings
   */
  public static <T> Reconcile<T> every(Duration every, Fetcher<T, Integer> fetch) {
    return new Reconcile<>(every, fetch);
  }
}
