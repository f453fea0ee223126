package io.watukuy.internal;

import io.watukuy.CycleInfo;
import io.watukuy.DeliveryCall;
import io.watukuy.DeliveryOutcome;
import io.watukuy.EventType;
import io.watukuy.KeyReport;
import io.watukuy.Lane;
import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.RequestInfo;
import io.watukuy.RequestStart;
import io.watukuy.WatukuyListener;
import io.watukuy.spi.ParkedRow;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Several listeners as one, called in the order they were registered: metrics, traces and the admin
 * server each register their own. Each listener sits behind its own guard, so one that throws
 * neither silences the ones after it nor reaches the engine.
 */
public final class ListenerChain implements WatukuyListener {
  private final List<WatukuyListener> listeners;

  private ListenerChain(List<WatukuyListener> listeners) {
    this.listeners = listeners;
  }

  /**
   * One listener for the given ones, in order.
   *
   * @param listeners the listeners; {@link WatukuyListener#NONE} entries are dropped
   * @return {@link WatukuyListener#NONE} for none, the listener itself for one, else a chain
   */
  public static WatukuyListener of(List<WatukuyListener> listeners) {
    List<WatukuyListener> live =
        listeners.stream().filter(l -> l != WatukuyListener.NONE).map(GuardedListener::of).toList();
    if (live.isEmpty()) return WatukuyListener.NONE;
    if (live.size() == 1) return live.get(0);
    return new ListenerChain(live);
  }

  private void each(Consumer<WatukuyListener> call) {
    for (WatukuyListener l : listeners) call.accept(l);
  }

  @Override
  public void onLeaseLost(PollerKey key, LeaseLostException error) {
    each(l -> l.onLeaseLost(key, error));
  }

  @Override
  public void onBudgetWait(PollerKey key, String budget, Duration wait) {
    each(l -> l.onBudgetWait(key, budget, wait));
  }

  @Override
  public void onBudgetWaitEnd(
      PollerKey key, String budget, Duration waited, @Nullable Throwable failure) {
    each(l -> l.onBudgetWaitEnd(key, budget, waited, failure));
  }

  @Override
  public void onParked(PollerKey key, ParkedRow row) {
    each(l -> l.onParked(key, row));
  }

  @Override
  public void onDeliveryFailed(
      PollerKey key,
      String eventId,
      long sequence,
      int attempt,
      @Nullable Instant retryAt,
      Throwable cause) {
    each(l -> l.onDeliveryFailed(key, eventId, sequence, attempt, retryAt, cause));
  }

  @Override
  public void onThrottled(PollerKey key, Instant until) {
    each(l -> l.onThrottled(key, until));
  }

  @Override
  public void onCircuitOpen(PollerKey key, Instant probeAt) {
    each(l -> l.onCircuitOpen(key, probeAt));
  }

  @Override
  public void onCircuitClose(PollerKey key) {
    each(l -> l.onCircuitClose(key));
  }

  @Override
  public void onPage(PollerKey key, int pages, int items, int events, Duration elapsed) {
    each(l -> l.onPage(key, pages, items, events, elapsed));
  }

  @Override
  public void onEvents(PollerKey key, Lane lane, EventType type, int count) {
    each(l -> l.onEvents(key, lane, type, count));
  }

  @Override
  public void onCycle(KeyReport report) {
    each(l -> l.onCycle(report));
  }

  @Override
  public void onError(PollerKey key, Throwable error) {
    each(l -> l.onError(key, error));
  }

  @Override
  public void onNoHandler(PollerKey key, long pending) {
    each(l -> l.onNoHandler(key, pending));
  }

  @Override
  public void onRequest(PollerKey key, RequestInfo request) {
    each(l -> l.onRequest(key, request));
  }

  @Override
  public void onRequestStart(PollerKey key, RequestStart request) {
    each(l -> l.onRequestStart(key, request));
  }

  @Override
  public void onDelivery(PollerKey key, DeliveryOutcome outcome) {
    each(l -> l.onDelivery(key, outcome));
  }

  @Override
  public void onCycleStart(CycleInfo cycle) {
    each(l -> l.onCycleStart(cycle));
  }

  @Override
  public void onCycleEnd(CycleInfo cycle, KeyReport report, Duration elapsed) {
    each(l -> l.onCycleEnd(cycle, report, elapsed));
  }

  @Override
  public void onCommit(CycleInfo cycle, long firstSequence, long lastSequence) {
    each(l -> l.onCommit(cycle, firstSequence, lastSequence));
  }

  /** Every listener's headers; a name two listeners give keeps the first one's value. */
  @Override
  public Map<String, String> onDeliveryStart(DeliveryCall call) {
    Map<String, String> all = new LinkedHashMap<>();
    for (WatukuyListener l : listeners)
      l.onDeliveryStart(call)
          .forEach(
              (name, value) -> {
                if (name != null && value != null) all.putIfAbsent(name, value);
              });
    return all;
  }

  @Override
  public void onDeliveryEnd(
      DeliveryCall call, int failed, @Nullable Throwable error, Duration elapsed) {
    each(l -> l.onDeliveryEnd(call, failed, error, elapsed));
  }
}
