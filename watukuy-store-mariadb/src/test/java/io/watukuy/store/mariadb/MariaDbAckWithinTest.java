package io.watukuy.store.mariadb;

import io.watukuy.store.jdbc.JdbcStore;
import io.watukuy.store.jdbc.contract.AckWithinContractTest;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * MariaDbStore's acks inside a caller's transaction, on the local MariaDB: one database per run of
 * this class (dropped after), a fresh table prefix and caller table per test.
 */
class MariaDbAckWithinTest extends AckWithinContractTest {

  @RegisterExtension
  static final MariaDbDatabase db = new MariaDbDatabase("wk_ackwithin", "watukuy-ack-within", 2);

  private static int stores;

  @Override
  protected JdbcStore newStore() {
    return MariaDbStore.builder(db.pool()).tablePrefix("t" + ++stores + "_").build();
  }

  @Override
  protected String table() {
    return "caller_" + stores;
  }
}
