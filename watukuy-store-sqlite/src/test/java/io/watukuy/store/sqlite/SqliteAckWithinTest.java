package io.watukuy.store.sqlite;

import io.watukuy.store.jdbc.JdbcStore;
import io.watukuy.store.jdbc.contract.AckWithinContractTest;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** SqliteStore's acks inside a caller's transaction, on a fresh file per test. */
class SqliteAckWithinTest extends AckWithinContractTest {

  @TempDir Path dir;

  @Override
  protected JdbcStore newStore() {
    return SqliteStore.open(dir.resolve("ack-within.db"));
  }

  @Override
  protected String table() {
    return "caller";
  }
}
