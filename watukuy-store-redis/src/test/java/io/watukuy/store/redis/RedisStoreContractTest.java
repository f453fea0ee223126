package io.watukuy.store.redis;

import io.watukuy.spi.StateStore;
import io.watukuy.testing.StoreContractTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * RedisStore against the published store contract, on the machine's Redis (127.0.0.1:6379), with a
 * fresh random key prefix per test whose keys are deleted afterwards.
 */
class RedisStoreContractTest extends StoreContractTest {
  private static LocalRedis redis;
  private String prefix;

  @BeforeAll
  static void connect() {
    redis = LocalRedis.open();
  }

  @AfterAll
  static void disconnect() {
    redis.close();
  }

  @Override
  protected StateStore newStore() {
    prefix = LocalRedis.newPrefix("contract");
    return redis.store(prefix);
  }

  @Override
  protected void destroy(StateStore store) {
    store.close();
    redis.deleteKeys(prefix);
  }
}
