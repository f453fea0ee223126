package io.watukuy.store.mariadb;

import io.watukuy.spi.StateStore;
import io.watukuy.testing.EffectStoreContractTest;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * MariaDbStore against the effect store contract, on the local MariaDB: one database per run of
 * this class (dropped after), one set of tables emptied before each test (see {@link
 * MariaDbDatabase#emptyTables}). The pool holds more connections than the contract's racing
 * threads, so the race happens in the database, not in the pool.
 */
class MariaDbEffectStoreContractTest extends EffectStoreContractTest {

  @RegisterExtension
  static final MariaDbDatabase db = new MariaDbDatabase("wk_effects", "watukuy-effects", 9);

  private static final String PREFIX = "e_";

  @Override
  protected StateStore newStore() {
    db.emptyTables(PREFIX);
    return MariaDbStore.builder(db.pool()).tablePrefix(PREFIX).build();
  }
}
