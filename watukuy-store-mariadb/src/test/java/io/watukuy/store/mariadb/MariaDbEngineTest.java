package io.watukuy.store.mariadb;

import io.watukuy.spi.StateStore;
import io.watukuy.testing.StoreEngineTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The engine scenarios on MariaDbStore (the same ids as on MemoryStore, a restart from the stored
 * cursor, two instances on one store): one database for the class, fresh tables (a table prefix)
 * per test, every client a store on the class's pool, as instances sharing one server would be.
 */
class MariaDbEngineTest extends StoreEngineTest {
  @RegisterExtension
  static final MariaDbDatabase db =
      new MariaDbDatabase("wk_engine", MariaDbTest.unique("watukuy-engine"), 4);

  private static int prefixes;
  private String prefix;

  @BeforeEach
  void freshTables() {
    prefix = "e" + ++prefixes + "_";
  }

  @Override
  protected StateStore openStore() {
    return MariaDbStore.builder(db.pool()).tablePrefix(prefix).build();
  }
}
