package io.watukuy.testing;

import io.watukuy.spi.StateStore;
import io.watukuy.store.memory.MemoryStore;

/** Three engines sharing one in-process {@link MemoryStore}. */
class MemoryMultiInstanceTest extends MultiInstanceTest {
  private final MemoryStore store = new MemoryStore();

  @Override
  protected StateStore openStore() {
    return store;
  }
}
