package io.watukuy.testing;

import io.watukuy.spi.StateStore;
import io.watukuy.store.memory.MemoryStore;

/** The reference store passes the effect store contract. */
class MemoryEffectStoreContractTest extends EffectStoreContractTest {
  @Override
  protected StateStore newStore() {
    return new MemoryStore();
  }
}
