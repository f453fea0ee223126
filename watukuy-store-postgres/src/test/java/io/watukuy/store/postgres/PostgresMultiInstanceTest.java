package io.watukuy.store.postgres;

import io.watukuy.spi.StateStore;
import io.watukuy.testing.MultiInstanceTest;
import io.watukuy.testing.TestPostgres;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three engines on one PostgreSQL schema, each with its own connection pool as three processes
 * would have; the schema is this test's own and is dropped afterwards.
 */
class PostgresMultiInstanceTest extends MultiInstanceTest {
  @RegisterExtension static final TestPostgres postgres = TestPostgres.local();

  private String schema;
  private int opened;

  @BeforeEach
  void newSchema() {
    schema = postgres.newSchema("wk_multi");
  }

  @Override
  protected synchronized StateStore openStore() {
    PostgresStore store =
        PostgresStore.builder(PgTest.pool(postgres, "watukuy-multi-" + opened++, 4))
            .schema(schema)
            .closeClient(true)
            .build();
    store.migrate();
    return store;
  }
}
