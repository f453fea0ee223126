package io.watukuy.cli;

import io.watukuy.FetchContext;
import io.watukuy.FetchException;

/**
 * The {@code PageRepeated} stall a YAML listing raises itself, before sending a request it knows
 * would repeat the pages before it (docs/operations.md, "Stalled lanes"): a next URL that points at
 * its own page, a {@code cursor.maxOffset} restart from the watermark the query before it started
 * from.
 */
final class PageRepeatedStall {
  private PageRepeatedStall() {}

  /**
   * The named fetch error for page {@code ctx.page()}, whose message is {@code "LANE lane stalled
   * (PageRepeated): CAUSE. The pages before it are committed; …"}.
   *
   * @param ctx the lane, partition, page and poller the error names
   * @param cause what would repeat and the fix, without a final full stop
   */
  static FetchException of(FetchContext<?> ctx, String cause) {
    return FetchException.named(
        ctx.poller(),
        ctx.partition(),
        ctx.page(),
        "PageRepeated",
        ctx.lane().wire()
            + " lane stalled (PageRepeated): "
            + cause
            + ". The pages before it are committed; the lane stops here for this cycle and that"
            + " request was not sent");
  }
}
