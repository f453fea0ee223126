package io.watukuy.store.sqlite;

import io.watukuy.spi.StateStore;
import io.watukuy.testing.StoreContractTest;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** SqliteStore against the published store contract, on a fresh file per test. */
class SqliteStoreContractTest extends StoreContractTest {

  // JUnit deletes the folder after destroy(...) has closed the store.
  @TempDir Path dir;

  @Override
  protected StateStore newStore() {
    return SqliteStore.open(dir.resolve("contract.db"));
  }
}
