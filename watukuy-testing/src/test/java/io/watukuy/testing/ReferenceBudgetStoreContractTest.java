package io.watukuy.testing;

import io.watukuy.BudgetLimit;
import io.watukuy.spi.RateBudgetStore;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * The budget contract's hand-worked values agree with its own reference model: a store made of
 * {@link RateBudgetStoreContractTest.Reference} buckets passes the suite.
 */
class ReferenceBudgetStoreContractTest extends RateBudgetStoreContractTest {

  @Override
  protected RateBudgetStore newStore() {
    return new RateBudgetStore() {
      // Guarded by this
      private final Map<String, Reference> buckets = new HashMap<>();

      @Override
      public synchronized Duration tryTake(
          String name, BudgetLimit limit, int permits, Instant now) {
        return buckets
            .computeIfAbsent(name, n -> new Reference(limit))
            .tryTake(permits, now.toEpochMilli());
      }
    };
  }
}
