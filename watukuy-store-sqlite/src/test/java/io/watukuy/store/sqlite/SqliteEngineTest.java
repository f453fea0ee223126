package io.watukuy.store.sqlite;

import io.watukuy.spi.StateStore;
import io.watukuy.testing.StoreEngineTest;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine scenarios on SqliteStore: every client is a connection of its own to one file per
 * test, as separate processes on one host would open.
 */
class SqliteEngineTest extends StoreEngineTest {
  // JUnit deletes the folder after the suite has closed the stores.
  @TempDir Path dir;

  @Override
  protected StateStore openStore() {
    return SqliteStore.open(dir.resolve("engine.db"));
  }
}
