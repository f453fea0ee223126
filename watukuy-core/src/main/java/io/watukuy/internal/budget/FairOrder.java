package io.watukuy.internal.budget;

import io.watukuy.Lane;
import io.watukuy.PollerKey;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The order in which the waiting requests of one budget get tokens:
 *
 * <ol>
 *   <li>Lane priority: live, then reconcile, then backfill, then replay (docs/architecture.md,
 *       "Lanes").
 *   <li>Within one lane priority, rounds: in each round every key gets up to its poller's {@code
 *       weight} turns. A request is placed in the earliest round in which its key still has a turn,
 *       never earlier than the round being served (so a key that was idle cannot claim turns for
 *       rounds that went by).
 *   <li>Within one round, arrival order.
 * </ol>
 *
 * Tokens go to the head of this order only, so a request never overtakes one that is ahead of it: a
 * later request of the same or a higher lane priority waits behind it, unless that one's key has
 * already had its turns in the current round. Not thread-safe: the gate's lock guards it.
 */
final class FairOrder {
  /** Lane priorities, highest first: the index is the rank. */
  private static final Lane[] PRIORITY = {Lane.LIVE, Lane.RECONCILE, Lane.BACKFILL, Lane.REPLAY};

  private static final Comparator<Waiter> ORDER =
      Comparator.comparingInt((Waiter w) -> w.rank)
          .thenComparingLong(w -> w.round)
          .thenComparingLong(w -> w.seq);

  private final TreeSet<Waiter> waiting = new TreeSet<>(ORDER);
  private final Map<Slot, Turns> turns = new HashMap<>();

  /** The round being served, per lane rank: the round of the last request that got a token. */
  private final long[] serving = new long[PRIORITY.length];

  private long nextSeq;

  /** A key in one lane: rounds are counted per lane priority. */
  private record Slot(PollerKey key, int rank) {}

  /** The round a key's latest request was placed in, and the turns it has used in that round. */
  private static final class Turns {
    long round;
    int used;
  }

  /** One waiting request. Its flags are guarded by the gate's lock. */
  static final class Waiter {
    final PollerKey key;
    final Lane lane;
    final int rank;
    final long round;
    final long seq;
    final long enqueuedNanos;
    final long deadlineNanos;
    final boolean deadlineIsTick;
    final BooleanSupplier stopped;
    boolean granted;
    boolean expired;
    boolean expiredByStop;

    Waiter(
        PollerKey key,
        Lane lane,
        int rank,
        long round,
        long seq,
        long enqueuedNanos,
        long deadlineNanos,
        boolean deadlineIsTick,
        BooleanSupplier stopped) {
      this.key = key;
      this.lane = lane;
      this.rank = rank;
      this.round = round;
      this.seq = seq;
      this.enqueuedNanos = enqueuedNanos;
      this.deadlineNanos = deadlineNanos;
      this.deadlineIsTick = deadlineIsTick;
      this.stopped = stopped;
    }

    @Override
    public String toString() {
      return key + "/" + lane.wire() + "#r" + round;
    }
  }

  static int rank(Lane lane) {
    for (int i = 0; i < PRIORITY.length; i++) if (PRIORITY[i] == lane) return i;
    throw new IllegalArgumentException("unknown lane " + lane);
  }

  /** Places a request without a deadline (tests of the order). */
  Waiter add(PollerKey key, Lane lane, int weight) {
    return add(key, lane, weight, 0, Long.MAX_VALUE, false, () -> false);
  }

  /**
   * Places a request in the order.
   *
   * @param weight the turns per round of the key; at least 1
   * @param deadlineNanos when the wait ends without a token, on the gate's monotonic clock
   * @param deadlineIsTick whether that deadline is the tick's rather than {@code maxWait}
   * @param stopped true once the cycle must stop (the engine stops without drain)
   */
  Waiter add(
      PollerKey key,
      Lane lane,
      int weight,
      long enqueuedNanos,
      long deadlineNanos,
      boolean deadlineIsTick,
      BooleanSupplier stopped) {
    Objects.requireNonNull(key, "key");
    if (weight < 1) throw new IllegalArgumentException("weight must be >= 1, but was " + weight);
    int rank = rank(lane);
    Turns t = turns.computeIfAbsent(new Slot(key, rank), s -> new Turns());
    if (t.round < serving[rank]) {
      t.round = serving[rank];
      t.used = 0;
    }
    if (t.used >= weight) {
      t.round++;
      t.used = 0;
    }
    t.used++;
    Waiter w =
        new Waiter(
            key,
            lane,
            rank,
            t.round,
            nextSeq++,
            enqueuedNanos,
            deadlineNanos,
            deadlineIsTick,
            stopped);
    waiting.add(w);
    return w;
  }

  /** The request that gets the next token, or null when none waits. */
  @Nullable Waiter head() {
    return waiting.isEmpty() ? null : waiting.first();
  }

  /** Gives the head its token. */
  Waiter grantHead() {
    Waiter w = waiting.pollFirst();
    if (w == null) throw new IllegalStateException("no request waits");
    w.granted = true;
    serving[w.rank] = Math.max(serving[w.rank], w.round);
    return w;
  }

  /** Ends a request's wait without a token. */
  void expire(Waiter w, boolean byStop) {
    if (waiting.remove(w)) {
      w.expired = true;
      w.expiredByStop = byStop;
    }
  }

  /** Drops a request that stopped waiting for a reason of its own (interrupt, store failure). */
  void remove(Waiter w) {
    waiting.remove(w);
  }

  /** How many requests are ahead of {@code w}. */
  int ahead(Waiter w) {
    return waiting.headSet(w, false).size();
  }

  /** The waiting requests, in order; a copy. */
  List<Waiter> waiters() {
    return new ArrayList<>(waiting);
  }

  boolean isEmpty() {
    return waiting.isEmpty();
  }
}
