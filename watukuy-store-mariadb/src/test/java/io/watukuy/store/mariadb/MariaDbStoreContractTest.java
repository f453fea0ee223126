package io.watukuy.store.mariadb;

import io.watukuy.spi.StateStore;
import io.watukuy.testing.StoreContractTest;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * MariaDbStore against the published store contract, on the local MariaDB: one database per run of
 * this class (dropped after), one set of tables emptied before each test.
 */
class MariaDbStoreContractTest extends StoreContractTest {

  @RegisterExtension
  static final MariaDbDatabase db = new MariaDbDatabase("wk_contract", "watukuy-contract", 4);

  private static final String PREFIX = "t_";

  /**
   * The class's one set of tables, emptied: the first test's {@code migrate()} creates them, every
   * later one finds them current. An empty table is what a fresh prefix gave (no row of an earlier
   * test), for a fraction of the cost of creating the tables anew for each of the contract's tests.
   */
  @Override
  protected StateStore newStore() {
    db.emptyTables(PREFIX);
    return MariaDbStore.builder(db.pool()).tablePrefix(PREFIX).build();
  }
}
