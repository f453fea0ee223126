package io.watukuy.store.redis;

import io.watukuy.spi.StateStore;
import io.watukuy.testing.MultiInstanceTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three engines on one Redis key prefix, each with its own client and connection as three processes
 * would have; the prefix is this test's own and its keys are deleted afterwards.
 */
class RedisMultiInstanceTest extends MultiInstanceTest {
  @RegisterExtension static final TestRedis redis = TestRedis.local();

  private String prefix;

  @BeforeEach
  void newPrefix() {
    prefix = redis.newPrefix("multi");
  }

  @Override
  protected StateStore openStore() {
    return redis.connect().store(prefix);
  }
}
