package io.watukuy.store.mariadb;

import io.watukuy.spi.StateStore;
import io.watukuy.testing.CredentialStoreContractTest;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * MariaDbStore against the credential contract, on the local MariaDB: one database per run of this
 * class (dropped after), a fresh table prefix per test. The pool holds more connections than the
 * contract's racing threads, so the race happens in the database, not in the pool.
 */
class MariaDbCredentialStoreContractTest extends CredentialStoreContractTest {

  @RegisterExtension
  static final MariaDbDatabase db = new MariaDbDatabase("wk_credentials", "watukuy-credentials", 9);

  private static int stores;

  @Override
  protected StateStore newStore() {
    return MariaDbStore.builder(db.pool()).tablePrefix("c" + ++stores + "_").build();
  }
}
