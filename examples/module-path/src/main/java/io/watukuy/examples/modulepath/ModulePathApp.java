package io.watukuy.examples.modulepath;

import io.watukuy.Cursors;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.Schedule;
import io.watukuy.Watukuy;
import io.watukuy.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Mirrors a two-item catalogue held in memory into a SQLite file, changes it, and mirrors it again,
 * printing one line per event ({@code created SKU-1}; events of different items may be handled in
 * any order), {@code --} after each pass, and then which of core's packages this module can read.
 * Run on the module path, it proves the descriptors: core and the store resolve, the application
 * API and SPI are exported, the engine's internals are not.
 *
 * <p>Usage: {@code ModulePathApp <state.db>}.
 */
public final class ModulePathApp {
  /** One product of the catalogue. */
  public record Product(String sku, int price) {}

  private ModulePathApp() {}

  public static void main(String[] args) throws Exception {
    List<Product> catalogue =
        new CopyOnWriteArrayList<>(List.of(new Product("SKU-1", 100), new Product("SKU-2", 200)));
    Poller<Product> products =
        Poller.builder("products", Product.class)
            .identity(Product::sku)
            .cursor(Cursors.snapshotDiff())
            .fetch(ctx -> Page.of(List.copyOf(catalogue)))
            .schedule(Schedule.every(Duration.ofMillis(10)))
            .build();
    try (SqliteStore store = SqliteStore.open(Path.of(args[0]));
        Watukuy watukuy = Watukuy.builder().store(store).poller(products).build()) {
      watukuy.on(
          products,
          event -> System.out.println(event.type().name().toLowerCase() + " " + event.identity()));
      watukuy.tick();
      System.out.println("--"); // tick() returns once its events are handled
      catalogue.set(1, new Product("SKU-2", 250));
      catalogue.remove(0);
      Thread.sleep(50); // let the 10 ms interval elapse
      watukuy.tick();
      System.out.println("--");
    }
    Module core = Watukuy.class.getModule();
    for (String pkg :
        List.of("io.watukuy", "io.watukuy.spi", "io.watukuy.store.memory", "io.watukuy.internal")) {
      System.out.println(pkg + " exported: " + core.isExported(pkg));
    }
  }
}
