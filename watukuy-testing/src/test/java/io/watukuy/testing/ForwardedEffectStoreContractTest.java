package io.watukuy.testing;

import io.watukuy.spi.StateStore;
import io.watukuy.store.memory.MemoryStore;

/**
 * The effect contract through the wrappers other code uses in place of a store: a {@link
 * FaultyStore} (nothing armed) around a {@link CountingStore} around the reference store, so the
 * effects runtime and its tests can observe or disturb a store's effect tables.
 */
class ForwardedEffectStoreContractTest extends EffectStoreContractTest {
  @Override
  protected StateStore newStore() {
    return new FaultyStore(new CountingStore(new MemoryStore()));
  }
}
