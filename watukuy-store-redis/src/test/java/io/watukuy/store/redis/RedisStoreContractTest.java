package io.watukuy.store.redis;

import io.watukuy.spi.StateStore;
import io.watukuy.testing.StoreContractTest;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * RedisStore against the published store contract, on the machine's Redis (127.0.0.1:6379), with a
 * fresh random key prefix per test whose keys are deleted afterwards.
 */
class RedisStoreContractTest extends StoreContractTest {
  @RegisterExtension static final TestRedis redis = TestRedis.local();

  @Override
  protected StateStore newStore() {
    return redis.store(redis.newPrefix("contract"));
  }
}
