package io.watukuy.store.redis;

import io.watukuy.spi.RateBudgetStore;
import io.watukuy.testing.RateBudgetStoreContractTest;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * RedisBudgetStore against the published budget contract, on the machine's Redis (127.0.0.1:6379),
 * with a fresh random key prefix per test whose keys are deleted afterwards.
 */
class RedisBudgetStoreContractTest extends RateBudgetStoreContractTest {
  @RegisterExtension static final TestRedis redis = TestRedis.local();

  @Override
  protected RateBudgetStore newStore() {
    return RedisBudgetStore.builder(redis.client())
        .prefix(redis.newPrefix("budget-contract"))
        .build();
  }
}
