package io.watukuy;

import io.watukuy.internal.budget.Budgets;
import io.watukuy.spi.RateBudgetStore;
import io.watukuy.store.memory.MemoryBudgetStore;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The rate budgets a {@link Watukuy.Builder} declares (docs/guarantees.md, G6): each name valid and
 * declared once, each limit one the token bucket can count, and every budget a poller names
 * declared. Apart from the builder, whose file is the engine's public surface. Not thread-safe,
 * like the builder.
 */
final class BudgetDeclarations {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}");

  /** In declaration order, so that an error lists the budgets as the application declared them. */
  private final Map<String, BudgetLimit> limits = new LinkedHashMap<>();

  /**
   * Declares one budget.
   *
   * @param name letters, digits, {@code _ . : -}, at most 100 characters
   * @param limit the rate and burst; {@code per} a whole number of milliseconds
   * @throws NullPointerException if an argument is null
   * @throws ConfigException if the name is not valid or already declared, if {@code per} is not a
   *     whole number of milliseconds, or if the bucket arithmetic cannot hold {@code burst × per}
   */
  void declare(String name, BudgetLimit limit) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(limit, "limit");
    if (!NAME.matcher(name).matches())
      throw new ConfigException(
          "budget name '" + name + "' is not valid: use letters, digits, _ . : - (at most 100)");
    if (limits.containsKey(name))
      throw new ConfigException("budget " + name + " is declared twice");
    if (!limit.per().minusMillis(limit.per().toMillis()).isZero())
      throw new ConfigException(
          "budget "
              + name
              + ": per must be a whole number of milliseconds, but was "
              + limit.per());
    try {
      MemoryBudgetStore.capacity(limit);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("budget " + name + ": " + e.getMessage());
    }
    limits.put(name, limit);
  }

  /**
   * Checks that every budget the pollers name is declared.
   *
   * @param pollers the engine's pollers
   * @throws ConfigException naming the first poller whose budget is not declared, and the declared
   *     budgets
   */
  void checkNamedBy(List<Poller<?>> pollers) {
    for (Poller<?> p : pollers) {
      String b = p.budget();
      if (b != null && !limits.containsKey(b))
        throw new ConfigException(
            "poller "
                + p.name()
                + ": budget '"
                + b
                + "' is not declared"
                + (limits.isEmpty()
                    ? " (the engine declares no budget)"
                    : "; declared: " + String.join(", ", limits.keySet())));
    }
  }

  /**
   * The engine's budgets over their buckets; later declarations do not reach them.
   *
   * @param store where the token buckets live
   * @param time the engine's clock
   * @return the budgets
   */
  Budgets build(RateBudgetStore store, TimeSource time) {
    return new Budgets(Map.copyOf(limits), store, time);
  }
}
