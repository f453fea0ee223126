package io.watukuy;

import org.jspecify.annotations.Nullable;

/**
 * A page could not be fetched or is not what the poller's fetch function promised (null items,
 * an item without an identity, a value RFC 8785 cannot canonicalize, a timestamp page that goes
 * backwards, an exception thrown by fetch). The message names the poller, the partition, the
 * 1-based page and, where one item is at fault, its 0-based index. Nothing of that page was
 * committed and the cursor did not move.
 *
 * @since 0.1
 */
public final class FetchException extends WatukuyException {
  private final String poller;
  private final String partition;
  private final int page;
  private final int itemIndex;

  /**
   * @param itemIndex 0-based index of the offending item, or -1 when the page as a whole is at
   *     fault
   */
  public FetchException(
      String poller,
      String partition,
      int page,
      int itemIndex,
      String problem,
      @Nullable Throwable cause) {
    super(describe(poller, partition, page, itemIndex) + ": " + problem, cause);
    this.poller = poller;
    this.partition = partition;
    this.page = page;
    this.itemIndex = itemIndex;
  }

  private static String describe(String poller, String partition, int page, int itemIndex) {
    StringBuilder b = new StringBuilder("poller ").append(poller);
    if (!partition.isEmpty()) b.append(" partition ").append(partition);
    b.append(" page ").append(page);
    if (itemIndex >= 0) b.append(" item ").append(itemIndex);
    return b.toString();
  }

  public String poller() {
    return poller;
  }

  public String partition() {
    return partition;
  }

  /** 1-based page of the cycle. */
  public int page() {
    return page;
  }

  /** 0-based item index, or -1 when the page as a whole is at fault. */
  public int itemIndex() {
    return itemIndex;
  }

  @Override
  public boolean retryable() {
    return true;
  }
}
