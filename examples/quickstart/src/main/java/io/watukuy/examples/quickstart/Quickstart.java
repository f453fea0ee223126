package io.watukuy.examples.quickstart;

import io.watukuy.BatchHandler;
import io.watukuy.ChangeEvent;
import io.watukuy.Cursors;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.RequestOptions;
import io.watukuy.Schedule;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import io.watukuy.store.sqlite.SqliteStore;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The README quickstart: mirror a vendor's product catalogue into your code as change events. The
 * vendor is a small local HTTP server ({@link VendorServer}) whose products change while the poller
 * runs; state lives in a SQLite file, so a second run re-sends nothing already delivered.
 *
 * <p>Usage: {@code Quickstart [path/to/state.db]} (default {@code quickstart.db}).
 */
public final class Quickstart {
  /** One product as the vendor's API returns it. */
  public record Product(String sku, String name, int price, String updatedAt) {}

  /** One page of the vendor's listing. */
  public record Listing(List<Product> items, boolean hasMore) {}

  public static void main(String[] args) throws Exception {
    System.exit(run(Path.of(args.length > 0 ? args[0] : "quickstart.db"), System.out, System.err));
  }

  static int run(Path db, PrintStream out, PrintStream err) throws Exception {
    try (VendorServer vendor = VendorServer.start();
        SqliteStore store = SqliteStore.open(db)) {
      // --- the poller: about twenty lines
      Poller<Product> products =
          Poller.builder("products", Product.class)
              .identity(Product::sku)
              .version(Product::updatedAt)
              .cursor(Cursors.timestamp("updatedAt").tieBreak("sku").build())
              .fetch(
                  ctx -> {
                    Watermark cursor = ctx.cursor();
                    Listing page =
                        ctx.http()
                            .get(
                                vendor.url("/products"),
                                RequestOptions.builder()
                                    .query(
                                        "updated_since",
                                        cursor.value()) // null on the first run: dropped
                                    .query("after_sku", cursor.tieBreak())
                                    .query("limit", 2)
                                    .build())
                            .json(Listing.class);
                    return Page.of(page.items()).withHasMore(page.hasMore());
                  })
              .schedule(Schedule.every(Duration.ofMillis(100)))
              .build();
      int[] delivered = {0};
      try (Watukuy watukuy = Watukuy.builder().store(store).poller(products).build()) {
        // A batch handler: up to delivery.batchSize events (default 100) at once, in order per
        // identity, acked in one store write when it returns. watukuy.on(products, event -> ...)
        // takes them one at a time instead.
        watukuy.onBatch(
            products,
            events -> {
              for (ChangeEvent<Product> event : events) out.println(event.toJson());
              out.flush(); // written as a whole, then acknowledged as a whole
              delivered[0] += events.size();
              return BatchHandler.BatchResult.ok();
            });
        // --- the demo: poll, let the vendor change things, poll again
        watukuy.tick();
        vendor.changePrice("SKU-2", 1250, "2026-01-02T09:00:00Z");
        vendor.add("SKU-4", "Teapot", 3100, "2026-01-02T09:30:00Z");
        Thread.sleep(150); // let the 100 ms interval elapse
        watukuy.tick();
      }
      err.printf(
          "%d events delivered from %d requests; state in %s%n",
          delivered[0], vendor.requests(), db);
      if (delivered[0] == 0)
        err.println(
            "Nothing new: every change was delivered by an earlier run. Delete "
                + db
                + " to start over.");
      return 0;
    }
  }
}
