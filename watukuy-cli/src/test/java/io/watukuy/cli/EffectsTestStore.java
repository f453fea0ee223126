package io.watukuy.cli;

import io.watukuy.PollerKey;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.Lease;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.StatePatch;
import io.watukuy.store.sqlite.SqliteStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A migrated SQLite store in a test's folder whose effect tables a test seeds through the
 * EffectStore SPI as an engine leaves them, and the command line run in-process against it on a
 * clock fixed at {@link #NOW} (docs/config.md, "Effects commands").
 */
final class EffectsTestStore implements AutoCloseable {
  /** When the seeded rows were written. */
  static final Instant T0 = Instant.parse("2026-01-05T10:00:00Z");

  /** The commands' clock: an hour after {@link #T0}, so a 30 s engine lease taken then expired. */
  static final Instant NOW = T0.plus(Duration.ofHours(1));

  /** The source key the effects read. */
  static final PollerKey ORDERS = PollerKey.of("orders");

  final Path db;
  final SqliteStore store;
  final EffectStore effects;

  /** Creates {@code watukuy.db} in {@code dir} and migrates it. */
  EffectsTestStore(Path dir) {
    db = dir.resolve("watukuy.db");
    store = SqliteStore.builder(db).build();
    store.migrate();
    effects = store.effects().orElseThrow();
  }

  /**
   * Commits events 1 to {@code head} to the log of {@link #ORDERS} as its poller would, event n
   * {@code n} seconds after {@link #T0}, so the log's head is {@code head}.
   */
  void logOrders(long head) {
    Lease poller = store.acquireLease(ORDERS, "engine-1", Duration.ofSeconds(30), T0).orElseThrow();
    for (long seq = 1; seq <= head; seq++)
      store.commitPoll(
          ORDERS,
          poller,
          new CommitBatch(
              StatePatch.NONE.withLastSequence(seq),
              List.of(),
              List.of(),
              List.of(OutboxRow.pending(seq, "evt-" + seq, "k", "{}", T0)),
              true,
              List.of()),
          T0.plusSeconds(seq));
  }

  /**
   * Writes config {@code file} next to the store: the store, poller {@code orders} with its log,
   * then {@code effects}, the YAML items under {@code effects:}.
   *
   * @return the file's path, as the commands take it
   */
  Path config(String file, String effects) throws IOException {
    Path config = db.resolveSibling(file);
    Files.writeString(
        config,
        """
        store: sqlite:watukuy.db
        pollers:
          - name: orders
            request: { url: http://127.0.0.1:9/orders }
            response: { items: /data }
            identity: /id
            cursor: { strategy: snapshotDiff }
            log: { enabled: true }
        effects:
        """
            + effects);
    return config;
  }

  /**
   * The lease engine {@code engine-1} takes on {@code effect} at {@link #T0} for 30 s, as an engine
   * does before it writes the effect's rows; by {@link #NOW} it has long expired.
   */
  Lease engineLease(String effect) {
    return effects.acquireEffectLease(effect, "engine-1", Duration.ofSeconds(30), T0).orElseThrow();
  }

  /** The store's URI, as {@code --store} takes it. */
  String uri() {
    return "sqlite:" + db;
  }

  /** The command at {@link #NOW}, with an empty environment and no terminal. */
  static CliRun cli(String... args) {
    return cli(Map.of(), null, args);
  }

  /**
   * The command at {@link #NOW}.
   *
   * @param env the environment
   * @param terminal the operator's terminal, or null for none
   */
  static CliRun cli(Map<String, String> env, Cli.@Nullable Terminal terminal, String... args) {
    return CliRun.on(Clock.fixed(NOW, ZoneOffset.UTC), env, terminal, args);
  }

  @Override
  public void close() {
    store.close();
  }
}
