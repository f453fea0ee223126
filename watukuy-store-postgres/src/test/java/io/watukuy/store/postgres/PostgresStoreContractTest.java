package io.watukuy.store.postgres;

import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.spi.StateStore;
import io.watukuy.testing.StoreContractTest;
import io.watukuy.testing.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * PostgresStore against the published store contract, on the local PostgreSQL: one schema per run
 * of this class (dropped after), one set of tables emptied before each test.
 */
class PostgresStoreContractTest extends StoreContractTest {
  @RegisterExtension static final TestPostgres postgres = TestPostgres.local();

  private static HikariDataSource pool;
  private static String schema;
  private static final String PREFIX = "t_";

  @BeforeAll
  static void openPool() {
    pool = PgTest.pool(postgres, PgTest.unique("watukuy-contract"), 4);
    schema = postgres.newSchema("wk_contract");
  }

  /**
   * The class's one set of tables, emptied: the first test's {@code migrate()} creates them, every
   * later one finds them current. An empty table is what a fresh prefix gave (no row of an earlier
   * test), for a fraction of the cost of creating the tables anew for each of the contract's tests.
   */
  @Override
  protected StateStore newStore() {
    PgTest.emptyTables(pool, schema, PREFIX);
    return PostgresStore.builder(pool).schema(schema).tablePrefix(PREFIX).build();
  }
}
