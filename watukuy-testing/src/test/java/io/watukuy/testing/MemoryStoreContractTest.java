package io.watukuy.testing;

import io.watukuy.MemoryStore;
import io.watukuy.StateStore;

/** The reference store passes the contract it defines. */
class MemoryStoreContractTest extends StoreContractTest {
  @Override
  protected StateStore newStore() {
    return new MemoryStore();
  }
}
