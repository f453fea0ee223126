package io.watukuy.internal.cursor;

/**
 * A page that breaks the strategy's rules (e.g. a timestamp page that goes backwards). The runner
 * turns it into a FetchException naming the poller, partition, page and item.
 */
public final class BadPage extends RuntimeException {
  private final int itemIndex;

  public BadPage(int itemIndex, String message) {
    super(message, null, false, false);
    this.itemIndex = itemIndex;
  }

  /** 0-based index of the offending item, or -1. */
  public int itemIndex() {
    return itemIndex;
  }
}
