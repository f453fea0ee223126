package io.watukuy.testing;

import io.watukuy.MemoryStore;
import io.watukuy.StateStore;

/** Three engines sharing one in-process {@link MemoryStore}. */
class MemoryMultiInstanceTest extends MultiInstanceTest {
  private final MemoryStore store = new MemoryStore();

  @Override
  protected StateStore openStore() {
    return store;
  }
}
