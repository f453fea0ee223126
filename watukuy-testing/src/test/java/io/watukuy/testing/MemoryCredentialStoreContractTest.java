package io.watukuy.testing;

import io.watukuy.spi.StateStore;
import io.watukuy.store.memory.MemoryStore;

/** The reference store passes the credential contract. */
class MemoryCredentialStoreContractTest extends CredentialStoreContractTest {
  @Override
  protected StateStore newStore() {
    return new MemoryStore();
  }
}
