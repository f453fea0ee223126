package io.watukuy.spi;

import io.watukuy.BudgetLimit;
import io.watukuy.StoreException;
import java.time.Duration;
import java.time.Instant;

/**
 * Where the token buckets of rate budgets live (docs/guarantees.md, G6; docs/stores.md,
 * "RateBudgetStore (G6)"). The in-process default keeps them in memory, so a budget holds for one
 * process; a shared implementation (the Redis module's {@code RedisBudgetStore}) holds it across
 * every instance that uses the same store.
 *
 * <p>Every implementation has the same arithmetic, driven by the caller's {@code now} and never by
 * a clock of its own (so it is deterministic under a virtual clock): a bucket first used at {@code
 * t0} holds {@code burst} tokens; at {@code now} it holds {@code min(burst, left + (now - last) *
 * requests / per)} where {@code left} is what the last successful take left at {@code last}. A take
 * of {@code n} tokens succeeds when the bucket holds at least {@code n}; otherwise nothing is taken
 * (nothing at all is written) and the store answers how long until it will hold them, in whole
 * milliseconds rounded up, so a take at {@code now + answer} succeeds unless someone else took
 * first. A {@code now} earlier than the bucket's last successful take counts as that take's instant
 * (clocks of several instances may disagree a little; time never runs backwards for a bucket). A
 * {@code per} that is not a whole number of milliseconds is still exact: the arithmetic is on
 * integers, with no rounding but the answer's.
 *
 * <p>Implementations are thread-safe. Fairness and lane priority among waiters are the engine's,
 * not the store's.
 *
 * @since 0.1
 */
public interface RateBudgetStore {
  /**
   * Takes {@code permits} tokens from budget {@code name} if it holds them at {@code now}.
   *
   * @param name the budget's name, as declared on the engine
   * @param limit the budget's rate; the same for every caller of one name
   * @param permits tokens to take; 1 to {@code limit.burst()}
   * @param now the caller's clock, at millisecond precision
   * @return {@link Duration#ZERO} when the tokens were taken; otherwise how long from {@code now}
   *     until the bucket will hold {@code permits} (nothing was taken), always more than zero
   * @throws StoreException when a shared store cannot be reached; nothing was taken
   * @throws IllegalArgumentException when {@code permits} is out of range
   */
  Duration tryTake(String name, BudgetLimit limit, int permits, Instant now);
}
