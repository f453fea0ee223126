package io.watukuy.testing;

import io.watukuy.spi.StateStore;
import io.watukuy.store.memory.MemoryStore;

/** The engine scenarios on the reference store: every client is the one in-process store. */
class MemoryStoreEngineTest extends StoreEngineTest {
  private final MemoryStore store = new MemoryStore();

  @Override
  protected StateStore openStore() {
    return store;
  }
}
