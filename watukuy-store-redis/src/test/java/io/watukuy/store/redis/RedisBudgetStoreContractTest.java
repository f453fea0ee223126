package io.watukuy.store.redis;

import io.watukuy.spi.RateBudgetStore;
import io.watukuy.testing.RateBudgetStoreContractTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * RedisBudgetStore against the published budget contract, on the machine's Redis (127.0.0.1:6379),
 * with a fresh random key prefix per test whose keys are deleted afterwards.
 */
class RedisBudgetStoreContractTest extends RateBudgetStoreContractTest {
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
  protected RateBudgetStore newStore() {
    prefix = LocalRedis.newPrefix("budget-contract");
    return RedisBudgetStore.builder(redis.redis).prefix(prefix).build();
  }

  @Override
  protected void destroy(RateBudgetStore store) {
    redis.deleteKeys(prefix);
  }
}
