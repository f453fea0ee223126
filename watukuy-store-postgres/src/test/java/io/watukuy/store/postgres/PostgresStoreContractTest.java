package io.watukuy.store.postgres;

import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.spi.StateStore;
import io.watukuy.testing.StoreContractTest;
import io.watukuy.testing.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * PostgresStore against the published store contract, on the local PostgreSQL: one schema per run
 * of this class (dropped after), a fresh table prefix per test.
 */
class PostgresStoreContractTest extends StoreContractTest {
  @RegisterExtension static final TestPostgres postgres = TestPostgres.local();

  private static HikariDataSource pool;
  private static String schema;
  private static int stores;

  @BeforeAll
  static void openPool() {
    pool = PgTest.pool(postgres, PgTest.unique("watukuy-contract"), 4);
    schema = postgres.newSchema("wk_contract");
  }

  @Override
  protected StateStore newStore() {
    return PostgresStore.builder(pool).schema(schema).tablePrefix("t" + ++stores + "_").build();
  }
}
