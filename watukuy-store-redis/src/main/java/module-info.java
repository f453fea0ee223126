/**
 * The Redis store and the shared budget store: {@code RedisStore} and {@code RedisBudgetStore},
 * over Lettuce or any client behind {@code RedisLike} (docs/stores.md).
 */
module io.watukuy.store.redis {
  requires transitive io.watukuy;
  requires transitive lettuce.core;
  requires org.slf4j;
  requires static org.jspecify;

  exports io.watukuy.store.redis;
}
