package io.watukuy.testing;

import io.watukuy.PollerKey;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.Lease;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.StateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Wraps any {@link StateStore} and simulates a process crash at one exact call, for each store
 * {@link KillPoint} (docs/architecture.md, "Kill points"). {@link #arm} a kill point; when the
 * matching call comes, the store throws {@link SimulatedCrash} (before or after delegating, as the
 * kill point says) and from then on rejects every call a cycle makes: a dead process can neither
 * save state nor release its lease. Administrative and inspection calls ({@code getLease}, {@code
 * listParked}, {@code retryParked}, {@code readLog}, {@code close} and the like) still reach the
 * wrapped store. Drop the engine that used it without {@code stop()}, and go on with a fresh engine
 * on the wrapped store. Because stores are transactional, a failed commit persists nothing.
 *
 * <p>One instance stands for one process. Thread-safe.
 *
 * @since 0.1
 */
public final class FaultyStore extends ForwardingStore {
  private final Object lock = new Object();
  // Guarded by lock
  private @Nullable KillPoint armed;
  // Guarded by lock
  private @Nullable KillPoint fired;
  // Guarded by lock: matching calls to let through before the armed point fires
  private int skip;
  // Guarded by lock: the only key whose calls can fire, or null for any
  private @Nullable PollerKey onlyKey;
  private final List<Consumer<KillPoint>> onKill = new ArrayList<>();

  /**
   * A live process on {@code delegate}, with nothing armed.
   *
   * @param delegate the real store
   * @throws NullPointerException if {@code delegate} is null
   */
  public FaultyStore(StateStore delegate) {
    super(delegate);
  }

  /**
   * The store this one wraps, for the fresh engine that goes on after a kill.
   *
   * @return the wrapped store
   */
  public StateStore delegate() {
    return delegate;
  }

  /**
   * Arms a store kill point; it fires at the next matching call. Re-arming replaces it.
   *
   * @param point a crash kill point
   * @return this store
   * @throws IllegalArgumentException for {@link KillPoint#HANDLER} or {@link KillPoint#PAUSED},
   *     which are not store faults
   */
  public FaultyStore arm(KillPoint point) {
    return arm(point, 0);
  }

  /**
   * Arms a store kill point that lets {@code skip} matching calls through and fires at the next
   * one, so a crash can hit any key of a tick, not only the first.
   *
   * @param point a crash kill point
   * @param skip matching calls to let through first; 0 or more
   * @return this store
   * @throws IllegalArgumentException for a kill point that is not a crash ({@link
   *     KillPoint#crash()}) or a negative skip
   */
  public FaultyStore arm(KillPoint point, int skip) {
    return arm(point, null, skip);
  }

  /**
   * Arms a store kill point for the calls of one key only: it lets {@code skip} matching calls of
   * that key through and fires at the next one.
   *
   * @param point the kill point
   * @param key the key whose calls can fire it, or null for any key
   * @param skip matching calls to let through first, at least 0
   * @return this store
   * @throws IllegalArgumentException for a kill point that is not a crash ({@link
   *     KillPoint#crash()}) or a negative skip
   */
  public FaultyStore arm(KillPoint point, @Nullable PollerKey key, int skip) {
    if (!point.crash()) throw new IllegalArgumentException(point + " is not a store kill point");
    if (skip < 0) throw new IllegalArgumentException("skip must be >= 0, but was " + skip);
    synchronized (lock) {
      armed = point;
      this.skip = skip;
      this.onlyKey = key;
    }
    return this;
  }

  /** Disarms without firing. */
  public void disarm() {
    synchronized (lock) {
      armed = null;
    }
  }

  /**
   * The kill point that fired, if any: the process is dead.
   *
   * @return the kill point, or empty while the process lives
   */
  public Optional<KillPoint> fired() {
    synchronized (lock) {
      return Optional.ofNullable(fired);
    }
  }

  /**
   * Whether a kill point fired.
   *
   * @return {@code true} once the process is dead
   */
  public boolean dead() {
    return fired().isPresent();
  }

  /**
   * Calls {@code listener} on the thread of the fatal call, right after the kill and before the
   * {@link SimulatedCrash} is thrown.
   *
   * @param listener receives the kill point that fired
   * @return this store
   */
  public FaultyStore onKill(Consumer<KillPoint> listener) {
    synchronized (lock) {
      onKill.add(listener);
    }
    return this;
  }

  private void alive(String call) {
    synchronized (lock) {
      if (fired != null)
        throw new SimulatedCrash(fired, "the process is dead; " + call + " never ran");
    }
  }

  /** Fires when {@code point} is armed and its skip count is used up. */
  private void maybeKill(KillPoint point, PollerKey key, String call) {
    KillPoint now;
    List<Consumer<KillPoint>> listeners;
    synchronized (lock) {
      if (fired != null)
        throw new SimulatedCrash(fired, "the process is dead; " + call + " never ran");
      if (armed != point || (onlyKey != null && !onlyKey.equals(key))) return;
      if (skip > 0) {
        skip--;
        return;
      }
      fired = point;
      armed = null;
      now = point;
      listeners = List.copyOf(onKill);
    }
    for (Consumer<KillPoint> l : listeners) l.accept(now);
    throw new SimulatedCrash(now, call);
  }

  @Override
  public Optional<Lease> acquireLease(PollerKey key, String owner, Duration ttl, Instant now) {
    maybeKill(KillPoint.BEFORE_ACQUIRE, key, "acquireLease " + key);
    return super.acquireLease(key, owner, ttl, now);
  }

  @Override
  public void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now) {
    maybeKill(KillPoint.AFTER_FETCH, key, "commitPoll " + key);
    super.commitPoll(key, lease, batch, now);
    maybeKill(KillPoint.AFTER_COMMIT, key, "after commitPoll " + key);
  }

  @Override
  public void ackEvents(PollerKey key, Lease lease, Collection<Long> sequences) {
    maybeKill(KillPoint.BEFORE_ACK, key, "ackEvents " + key + " " + sequences);
    alive("ackEvents");
    super.ackEvents(key, lease, sequences);
    // mid-dispatch: some events of the key are acked, the next handler has not run yet
    maybeKill(KillPoint.MID_DISPATCH, key, "after ackEvents " + key + " " + sequences);
  }

  @Override
  public void saveState(PollerKey key, Lease lease, StatePatch patch, Instant now) {
    maybeKill(KillPoint.AFTER_ACK_BEFORE_SCHEDULE, key, "saveState " + key);
    super.saveState(key, lease, patch, now);
  }

  @Override
  public void releaseLease(PollerKey key, Lease lease) {
    maybeKill(KillPoint.DURING_RELEASE, key, "releaseLease " + key);
    super.releaseLease(key, lease);
  }

  /**
   * Every other call of a dead process fails too (the kill points above check before this runs);
   * {@code migrate}, which a process runs before its first cycle, is let through.
   */
  @Override
  protected void beforeCall(String method) {
    if (!method.equals("migrate")) alive(method);
  }
}
