package io.watukuy.store.redis;

import io.watukuy.spi.StateStore;
import io.watukuy.testing.MultiInstanceTest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/**
 * Three engines on one Redis key prefix, each with its own client and connection as three processes
 * would have; the prefix is this test's own and its keys are deleted afterwards.
 */
class RedisMultiInstanceTest extends MultiInstanceTest {
  private final String prefix = LocalRedis.newPrefix("multi");
  private final List<LocalRedis> connections = new ArrayList<>();

  @Override
  protected synchronized StateStore openStore() {
    LocalRedis redis = LocalRedis.open();
    connections.add(redis);
    return redis.store(prefix);
  }

  @AfterEach
  synchronized void deleteKeysAndDisconnect() {
    if (!connections.isEmpty()) connections.get(0).deleteKeys(prefix);
    connections.forEach(LocalRedis::close);
  }
}
