package io.watukuy.internal;

import io.watukuy.BatchHandler;
import io.watukuy.DeliveryPolicy;
import io.watukuy.Handler;
import io.watukuy.HandlerUnavailableException;
import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.internal.http.Redactor;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The delivery state of one key during one cycle: which ordering keys are held or waiting for a
 * retry (their later events must wait too, G3), and counters for the report.
 */
final class Delivery {
  final PollerKey key;
  final LeaseKeeper lease;

  /** The handler of one event at a time, or null when {@link #batch} is set. */
  final @Nullable Handler<Object> handler;

  /** The batch handler, or null when {@link #handler} is set. */
  final @Nullable BatchHandler<Object> batch;

  final Class<Object> type;
  final DeliveryPolicy policy;

  /** True once the engine stops without drain: no new handler starts. */
  final BooleanSupplier cancelled;

  /** Reads the ordering keys held by parked rows ({@code StateStore.heldKeys}). */
  private final Supplier<Set<String>> held;

  // Confined to the thread running the key's cycle, like the delivery itself.
  private boolean heldLoaded;

  /** Ordering keys whose next event must not be delivered in this cycle. */
  final Set<String> blocked = new HashSet<>();

  /** Set when the handler reported its destination down: nothing more is delivered this cycle. */
  @Nullable HandlerUnavailableException unavailable;

  /** Hides the engine's secrets in the errors stored in outbox and parked rows. */
  Redactor redactor = Redactor.NONE;

  /**
   * Set, by the thread that was about to run a handler, when the lease refused a hand-off ({@link
   * LeaseKeeper#checkHandOff()}): no other handler of this key starts.
   */
  volatile @Nullable LeaseLostException stale;

  /**
   * The envelopes of the page just committed, for the first delivery of its rows without parsing
   * their JSON; {@link FreshEvents#NONE} outside a page's hand-off. Set by the key's cycle thread,
   * read by handler threads.
   */
  volatile FreshEvents fresh = FreshEvents.NONE;

  int delivered;

  /**
   * The last counted failure of an event in this cycle (retried or parked), for {@code lastError}:
   * {@code inspect} shows why events wait while a sink refuses them (docs/operations.md, "Health").
   */
  volatile @Nullable String failure;

  int parked;
  boolean halted;
  @Nullable Instant earliestRetry;

  Delivery(
      PollerKey key,
      LeaseKeeper lease,
      @Nullable Handler<Object> handler,
      @Nullable BatchHandler<Object> batch,
      Class<Object> type,
      DeliveryPolicy policy,
      Supplier<Set<String>> held,
      BooleanSupplier cancelled) {
    this.key = key;
    this.lease = lease;
    this.handler = handler;
    this.batch = batch;
    this.type = type;
    this.policy = policy;
    this.cancelled = cancelled;
    this.held = held;
  }

  /**
   * Adds the ordering keys parked rows hold to {@link #blocked}, once, before the first event is
   * delivered: a cycle that delivers nothing never reads them.
   */
  void loadHeld() {
    if (heldLoaded) return;
    blocked.addAll(held.get());
    heldLoaded = true;
  }

  void retryAt(Instant at) {
    if (earliestRetry == null || at.isBefore(earliestRetry)) earliestRetry = at;
  }
}
