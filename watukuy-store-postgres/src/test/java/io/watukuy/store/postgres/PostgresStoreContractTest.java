package io.watukuy.store.postgres;

import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.spi.StateStore;
import io.watukuy.testing.StoreContractTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * PostgresStore against the published store contract, on the local PostgreSQL: one schema per run
 * of this class (dropped after), a fresh table prefix per test.
 */
class PostgresStoreContractTest extends StoreContractTest {

  private static HikariDataSource pool;
  private static String schema;
  private static int stores;

  @BeforeAll
  static void openPool() {
    pool = PgTest.pool(PgTest.unique("watukuy-contract"), 4);
    schema = PgTest.unique("wk_contract");
  }

  @AfterAll
  static void dropSchema() {
    try {
      PgTest.dropSchema(pool, schema);
    } finally {
      pool.close();
    }
  }

  @Override
  protected StateStore newStore() {
    return PostgresStore.builder(pool).schema(schema).tablePrefix("t" + ++stores + "_").build();
  }
}
