/**
 * {@link io.watukuy.store.redis.RedisStore}, the {@link io.watukuy.spi.StateStore} on Redis, and
 * {@link io.watukuy.store.redis.RedisBudgetStore}, the {@link io.watukuy.spi.RateBudgetStore} that
 * shares rate budgets across instances (docs/stores.md, "RedisStore and RedisBudgetStore"), both
 * reached through the {@link io.watukuy.store.redis.RedisLike} port; {@link
 * io.watukuy.store.redis.LettuceRedis} adapts a Lettuce connection to it.
 */
@NullMarked
package io.watukuy.store.redis;

import org.jspecify.annotations.NullMarked;
