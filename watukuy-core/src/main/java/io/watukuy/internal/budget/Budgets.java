package io.watukuy.internal.budget;

import io.watukuy.BudgetLimit;
import io.watukuy.ConfigException;
import io.watukuy.Lane;
import io.watukuy.PollerKey;
import io.watukuy.TimeSource;
import io.watukuy.spi.RateBudgetStore;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/** The rate budgets of one engine: one gate per declared budget, over one store. Thread-safe. */
public final class Budgets {
  private final Map<String, BudgetGate> gates;

  /**
   * @param limits the declared budgets by name
   * @param store where the buckets live
   * @param time the engine's clock: every wait sleeps on it
   */
  public Budgets(Map<String, BudgetLimit> limits, RateBudgetStore store, TimeSource time) {
    Map<String, BudgetGate> g = new LinkedHashMap<>();
    limits.forEach((name, limit) -> g.put(name, new BudgetGate(name, limit, store, time)));
    this.gates = Map.copyOf(g);
  }

  /**
   * Takes one token of {@code budget} for a request of {@code key}, waiting in fair order when
   * there is none; see {@link FairOrder} and {@link BudgetGate}.
   *
   * @param budget a declared budget
   * @param key the key sending the request
   * @param lane the lane of the request: its priority
   * @param weight the poller's turns per round; at least 1
   * @param maxWait the poller's longest wait
   * @param tickDeadlineNanos the tick deadline on the engine clock's nanoTime, or null
   * @param stopped true once the cycle must stop
   * @param onWait called once, without any lock held, with the expected wait when the request has
   *     to wait
   * @throws io.watukuy.BudgetTimeoutException when no token came in time
   * @throws InterruptedException if interrupted while waiting
   * @throws ConfigException for an undeclared budget (the engine checks this at build time)
   */
  public void acquire(
      String budget,
      PollerKey key,
      Lane lane,
      int weight,
      Duration maxWait,
      @Nullable Long tickDeadlineNanos,
      BooleanSupplier stopped,
      Consumer<Duration> onWait)
      throws InterruptedException {
    BudgetGate gate = gates.get(budget);
    if (gate == null)
      throw new ConfigException(
          "poller " + key.poller() + ": budget '" + budget + "' is not declared");
    gate.acquire(key, lane, weight, maxWait, tickDeadlineNanos, stopped, onWait);
  }
}
