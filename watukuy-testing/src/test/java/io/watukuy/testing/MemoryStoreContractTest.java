package io.watukuy.testing;

import io.watukuy.spi.StateStore;
import io.watukuy.store.memory.MemoryStore;

/** The reference store passes the contract it defines. */
class MemoryStoreContractTest extends StoreContractTest {
  @Override
  protected StateStore newStore() {
    return new MemoryStore();
  }
}
