package io.watukuy;

import org.jspecify.annotations.Nullable;

/**
 * A page could not be fetched or is not what the poller's fetch function promised (null items, an
 * item without an identity, a value RFC 8785 cannot canonicalize, a timestamp page that goes
 * backwards, an exception thrown by fetch). The message names the poller, the partition, the
 * 1-based page and, where one item is at fault, its 1-based number ({@code item 1} is the first;
 * {@link #itemIndex()} stays 0-based). Nothing of that page was committed and the cursor did not
 * move.
 *
 * @since 0.1
 */
public final class FetchException extends WatukuyException {
  /** The poller name. */
  private final String poller;

  /** The partition, {@code ""} when unpartitioned. */
  private final String partition;

  /** 1-based page of the cycle. */
  private final int page;

  /** 0-based item index, or -1 for the whole page. */
  private final int itemIndex;

  /** What {@link #kind()} answers. */
  private final String kind;

  /**
   * The {@link #kind()} of a stall where the API or the request would repeat the pages before it
   * (docs/operations.md, "Stalled lanes"); see {@link #pageRepeated}.
   *
   * @since 0.3
   */
  public static final String PAGE_REPEATED = "PageRepeated";

  /**
   * The {@link #kind()} of the note added as a suppressed exception to the error that ended a
   * timestamp listing with {@code sorted(false)}: its watermark stayed where the listing started
   * (docs/config.md, "Unsorted listings").
   *
   * @since 0.3
   */
  public static final String WATERMARK_KEPT = "WatermarkKept";

  /**
   * Creates the exception; the message is {@code "poller <p>[ partition <q>] page <n>[ item <i+1>]:
   * <problem>"}.
   *
   * @param poller the poller name
   * @param partition the partition, {@code ""} when unpartitioned (then left out of the message)
   * @param page 1-based page of the cycle
   * @param itemIndex 0-based index of the offending item, or -1 when the page as a whole is at
   *     fault
   * @param problem what is wrong, naming the field where one is at fault
   * @param cause the exception fetch threw, or {@code null}
   */
  public FetchException(
      String poller,
      String partition,
      int page,
      int itemIndex,
      String problem,
      @Nullable Throwable cause) {
    this(poller, partition, page, itemIndex, problem, cause, "FetchException");
  }

  private FetchException(
      String poller,
      String partition,
      int page,
      int itemIndex,
      String problem,
      @Nullable Throwable cause,
      String kind) {
    super(describe(poller, partition, page, itemIndex) + ": " + problem, cause);
    this.poller = poller;
    this.partition = partition;
    this.page = page;
    this.itemIndex = itemIndex;
    this.kind = kind;
  }

  /**
   * A lane or listing that could not complete, under a name monitoring can match on
   * (docs/operations.md): {@code PageRepeated} or {@code TokenNotAdvancing} when the request for
   * {@code page} would repeat the page before it, or the page repeats its items without moving the
   * cursor ("Stalled lanes": the request was not sent, a failure for backoff and the circuit);
   * {@code ListingTruncated} when a full listing was cut at its page cap or the tick deadline
   * ("Truncated listings": reported, not a failure); {@code WatermarkKept}, added as a suppressed
   * exception to the error that ended a timestamp listing with {@code sorted(false)}, saying where
   * its watermark stayed (docs/config.md, "Unsorted listings"). The pages committed before it stay.
   * A fetch function that knows its next request would repeat the page before it (a next-page URL
   * that points at the page it came with) may throw a {@code PageRepeated} one itself, without
   * sending the request: it is reported as it is, like the engine's own.
   *
   * @param poller the poller name
   * @param partition the partition, {@code ""} when unpartitioned
   * @param page 1-based page of the cycle the lane stopped at
   * @param kind what {@link #kind()} and {@code lastError.name} say
   * @param problem the lane, the cursor or the pages, and the fix that fits
   * @return the exception
   */
  public static FetchException named(
      String poller, String partition, int page, String kind, String problem) {
    return new FetchException(poller, partition, page, -1, problem, null, kind);
  }

  /**
   * The {@link #PAGE_REPEATED} stall of page {@code ctx.page()}, for a fetch function that knows,
   * before sending it, that the request would repeat the pages before it (a next URL already read
   * in this listing, an offset restart from the query before it): docs/operations.md, "Stalled
   * lanes". Its message is {@code "LANE lane stalled (PageRepeated): CAUSE. The pages before it are
   * committed; the lane stops here for this cycle and that request was not sent"}, after the
   * poller, partition and page.
   *
   * @param ctx the fetch, for its poller, partition, page and lane
   * @param cause what would repeat and the fix, without a final full stop
   * @return the exception, to throw instead of sending the request
   * @since 0.3
   */
  public static FetchException pageRepeated(FetchContext<?> ctx, String cause) {
    return named(
        ctx.poller(),
        ctx.partition(),
        ctx.page(),
        PAGE_REPEATED,
        ctx.lane().wire()
            + " lane stalled ("
            + PAGE_REPEATED
            + "): "
            + cause
            + ". The pages before it are committed; the lane stops here for this cycle and that"
            + " request was not sent");
  }

  private static String describe(String poller, String partition, int page, int itemIndex) {
    StringBuilder b = new StringBuilder("poller ").append(poller);
    if (!partition.isEmpty()) b.append(" partition ").append(partition);
    b.append(" page ").append(page);
    if (itemIndex >= 0) b.append(" item ").append(itemIndex + 1); // people count from 1
    return b.toString();
  }

  /**
   * The poller whose page failed.
   *
   * @return the poller name
   */
  public String poller() {
    return poller;
  }

  /**
   * The partition whose page failed.
   *
   * @return the partition, {@code ""} when unpartitioned
   */
  public String partition() {
    return partition;
  }

  /**
   * The page that failed.
   *
   * @return 1-based page of the cycle
   */
  public int page() {
    return page;
  }

  /**
   * The item at fault.
   *
   * @return 0-based item index within the page, or -1 when the page as a whole is at fault
   */
  public int itemIndex() {
    return itemIndex;
  }

  /**
   * {@inheritDoc} {@code FetchException} for a bad page or item; {@code PageRepeated} or {@code
   * TokenNotAdvancing} for a stalled lane ({@link #stalled}).
   */
  @Override
  public String kind() {
    return kind;
  }

  /**
   * {@inheritDoc} Always {@code true}: a later cycle requests the page again, although a bad item
   * fails again until the API or the poller changes.
   */
  @Override
  public boolean retryable() {
    return true;
  }
}
