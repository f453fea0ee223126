package io.watukuy.store.mariadb;

import io.watukuy.spi.StateStore;
import io.watukuy.testing.StoreContractTest;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * MariaDbStore against the published store contract, on the local MariaDB: one database per run of
 * this class (dropped after), a fresh table prefix per test.
 */
class MariaDbStoreContractTest extends StoreContractTest {

  @RegisterExtension
  static final MariaDbDatabase db = new MariaDbDatabase("wk_contract", "watukuy-contract", 4);

  private static int stores;

  @Override
  protected StateStore newStore() {
    return MariaDbStore.builder(db.pool()).tablePrefix("t" + ++stores + "_").build();
  }
}
