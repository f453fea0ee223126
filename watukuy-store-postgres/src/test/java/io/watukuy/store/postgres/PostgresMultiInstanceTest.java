package io.watukuy.store.postgres;

import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.spi.StateStore;
import io.watukuy.testing.MultiInstanceTest;
import org.junit.jupiter.api.AfterEach;

/**
 * Three engines on one PostgreSQL schema, each with its own connection pool as three processes
 * would have; the schema is this test's own and is dropped afterwards.
 */
class PostgresMultiInstanceTest extends MultiInstanceTest {
  private final String schema = PgTest.unique("wk_multi");
  private int opened;

  @Override
  protected StateStore openStore() {
    HikariDataSource pool = PgTest.pool("watukuy-multi-" + opened++, 4);
    PostgresStore store = PostgresStore.builder(pool).schema(schema).closeClient(true).build();
    store.migrate();
    return store;
  }

  @AfterEach
  void dropSchema() {
    try (HikariDataSource pool = PgTest.pool("watukuy-multi-drop", 1)) {
      PgTest.dropSchema(pool, schema);
    }
  }
}
