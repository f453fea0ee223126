package io.watukuy.store.postgres;

import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.store.jdbc.JdbcStore;
import io.watukuy.store.jdbc.contract.AckWithinContractTest;
import io.watukuy.testing.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * PostgresStore's acks inside a caller's transaction, on the local PostgreSQL: one schema per run
 * of this class, a fresh table prefix and caller table per test.
 */
class PostgresAckWithinTest extends AckWithinContractTest {
  @RegisterExtension static final TestPostgres postgres = TestPostgres.local();

  private static HikariDataSource pool;
  private static String schema;
  private static int stores;

  @BeforeAll
  static void openPool() {
    pool = PgTest.pool(postgres, PgTest.unique("watukuy-ack-within"), 2);
    schema = postgres.newSchema("wk_ackwithin");
  }

  @AfterAll
  static void closePool() {
    pool.close();
  }

  @Override
  protected JdbcStore newStore() {
    return PostgresStore.builder(pool).schema(schema).tablePrefix("t" + ++stores + "_").build();
  }

  @Override
  protected String table() {
    return schema + ".caller_" + stores;
  }
}
