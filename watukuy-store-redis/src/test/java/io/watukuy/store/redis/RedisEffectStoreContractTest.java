package io.watukuy.store.redis;

import io.watukuy.spi.StateStore;
import io.watukuy.testing.EffectStoreContractTest;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * RedisStore against the effect store contract, on the machine's Redis (127.0.0.1:6379), with a
 * fresh random key prefix per test whose keys are deleted afterwards.
 */
class RedisEffectStoreContractTest extends EffectStoreContractTest {
  @RegisterExtension static final TestRedis redis = TestRedis.local();

  @Override
  protected StateStore newStore() {
    return redis.store(redis.newPrefix("effects"));
  }
}
