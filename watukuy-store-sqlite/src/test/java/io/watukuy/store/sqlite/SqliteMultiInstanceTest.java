package io.watukuy.store.sqlite;

import io.watukuy.spi.StateStore;
import io.watukuy.testing.MultiInstanceTest;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three engines, each with its own {@link SqliteStore} connection to one file, as three processes.
 */
class SqliteMultiInstanceTest extends MultiInstanceTest {
  @TempDir Path dir;

  @Override
  protected StateStore openStore() {
    SqliteStore store = SqliteStore.open(dir.resolve("shared.db"));
    store.migrate();
    return store;
  }
}
