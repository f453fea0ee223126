package io.watukuy.store.mariadb;

import io.watukuy.spi.StateStore;
import io.watukuy.testing.MultiInstanceTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Three engines on one MariaDB database, each with its own connection pool as three processes would
 * have; the database is this test's own and is dropped afterwards.
 */
class MariaDbMultiInstanceTest extends MultiInstanceTest {
  private String database;
  private int opened;

  @BeforeEach
  void createDatabase() {
    database = MariaDbTest.createDatabase("wk_multi");
  }

  @Override
  protected StateStore openStore() {
    MariaDbStore store =
        MariaDbStore.builder(MariaDbTest.pool(database, "watukuy-multi-" + opened++, 4))
            .closeClient(true)
            .build();
    store.migrate();
    return store;
  }

  @AfterEach
  void dropDatabase() {
    MariaDbTest.dropDatabase(database);
  }
}
