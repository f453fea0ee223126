package io.watukuy;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * What a {@link Fetcher} receives for one page request. Valid only during that fetch call.
 *
 * @param <C> the cursor type of the poller's strategy
 * @since 0.1
 */
public interface FetchContext<C> {

  /**
   * The cursor to fetch with: a {@link Watermark} (timestamp; with overlap, the value minus the
   * overlap and a null tie-break), a token string or null (token), the page number (page), null
   * (snapshotDiff), or the user's cursor (custom).
   */
  @Nullable C cursor();

  /** 1-based index of this request within the cycle's lane; use it to page a snapshotDiff. */
  int page();

  /** The poller name. */
  String poller();

  /** The partition, {@code ""} when unpartitioned. */
  String partition();

  /** The lane this fetch belongs to. */
  Lane lane();

  /** 1-based attempt of this page within the cycle. */
  int attempt();

  /**
   * The HTTP helper for this fetch: JSON GET/POST on the JDK client, ETag / Last-Modified
   * validators kept per URL in the store, secrets redacted in errors, Retry-After and RateLimit
   * headers recorded for the scheduler.
   */
  Http http();

  /** Ends the fetch early when the engine stops or the tick deadline passes. */
  CancellationToken cancellation();

  /** A logger named after the poller. */
  Logger logger();
}
