package io.watukuy.store.sqlite;

import io.watukuy.spi.StateStore;
import io.watukuy.testing.EffectStoreContractTest;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** SqliteStore against the effect store contract, on a fresh file per test. */
class SqliteEffectStoreContractTest extends EffectStoreContractTest {

  // JUnit deletes the folder after destroy(...) has closed the store.
  @TempDir Path dir;

  @Override
  protected StateStore newStore() {
    return SqliteStore.open(dir.resolve("effects.db"));
  }
}
