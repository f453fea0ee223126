package io.watukuy.testing;

import io.watukuy.spi.RateBudgetStore;
import io.watukuy.store.memory.MemoryBudgetStore;

/** The in-memory budget store against the contract every {@link RateBudgetStore} passes. */
class MemoryBudgetStoreContractTest extends RateBudgetStoreContractTest {
  @Override
  protected RateBudgetStore newStore() {
    return new MemoryBudgetStore();
  }
}
