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
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The user's listener behind a guard: whatever a callback throws is logged and dropped, so that a
 * metrics or alerting bug can never end a cycle, a delivery or a daemon pass. The engine wraps the
 * listener once when it is built and every stage calls the guarded one directly, instead of
 * wrapping each call site.
 */
final class GuardedListener implements WatukuyListener {
  private static final Logger log = LoggerFactory.getLogger(GuardedListener.class);

  private final WatukuyListener listener;

  private GuardedListener(WatukuyListener listener) {
    this.listener = listener;
  }

  /** The guarded listener; {@link WatukuyListener#NONE} throws nothing and stays as it is. */
  static WatukuyListener of(WatukuyListener listener) {
    return listener == WatukuyListener.NONE || listener instanceof GuardedListener
        ? listener
        : new GuardedListener(listener);
  }

  private static void ignored(RuntimeException e) {
    log.warn("listener threw; ignored", e);
  }

  @Override
  public void onLeaseLost(PollerKey key, LeaseLostException error) {
    try {
      listener.onLeaseLost(key, error);
    } catch (RuntimeException e) {
      ignored(e);
    }
  }

  @Override
  public void onBudgetWait(PollerKey key, String budget, Duration wait) {
    try {
      listener.onBudgetWait(key, budget, wait);
    } catch (RuntimeException e) {
      ignored(e);
    }
  }

  @Override
  public void onBudgetWaitEnd(
      PollerKey key, String budget, Duration waited, @Nullable Throwable failure) {
    try {
      listener.onBudgetWaitEnd(key, budget, waited, failure);
    } catch (RuntimeException e) {
      ignored(e);
    }
  }

  @Override
  public void onParked(PollerKey key, ParkedRow row) {
    try {
      listener.onParked(key, row);
    } catch (RuntimeException e) {
      ignored(e);
    }
  }

  @Override
  public void onDeliveryFailed(
      PollerKey key,
      String eventId,
      long sequence,
      int attempt,
      @Nullable Instant retryAt,
      Throwable cause) {
    try {
      listener.onDeliveryFailed(key, eventId, sequence, attempt, retryAt, cause);
    } catch (RuntimeException e) {
      ignored(e);
    }
  }

  @Override
  public void onThrottled(PollerKey key, Instant until) {
    try {
      listener.onThrottled(key, until);
    } catch (RuntimeException e) {
      ignored(e);
    }
  }

  @Override
  public void onCircuitOpen(PollerKey key, Instant probeAt) {
    try {
      listener.onCircuitOpen(key, probeAt);
    } catch (RuntimeException e) {
      ignored(e);
    }
  }

  @Override
  public void onCircuitClose(PollerKey key) {
    try {
      listener.onCircuitClose(key);
    } catch (RuntimeException e) {
      ignored(e);
    }
  }

  @Override
  public void onPage(PollerKey key, int pages, int items, int events, Duration elapsed) {
    try {
      listener.onPage(key, pages, items, events, elapsed);
    } catch (RuntimeException e) {
      ignored(e);
    }
  }

  @Override
  public void onEvents(PollerKey key, Lane lane, EventType type, int count) {
    try {
      listener.onEvents(key, lane, type, count);
    } catch (RuntimeException e) {
      ignored(e);
    }
  }

  @Override
  public void onCycle(KeyReport report) {
    try {
      listener.onCycle(report);
    } catch (RuntimeException e) {
      ignored(e);
    }
  }

  @Override
  public void onError(PollerKey key, Throwable error) {
    try {
      listener.onError(key, error);
    } catch (RuntimeException e) {
      ignored(e);
    }
  }

  @Override
  public void onNoHandler(PollerKey key, long pending) {
    try {
      listener.onNoHandler(key, pending);
    } catch (RuntimeException e) {
      ignored(e);
    }
  }

  @Override
  public void onRequest(PollerKey key, RequestInfo request) {
    try {
      listener.onRequest(key, request);
    } catch (RuntimeException e) {
      ignored(e);
    }
  }

  @Override
  public void onRequestStart(PollerKey key, RequestStart request) {
    try {
      listener.onRequestStart(key, request);
    } catch (RuntimeException e) {
      ignored(e);
    }
  }

  @Override
  public void onDelivery(PollerKey key, DeliveryOutcome outcome) {
    try {
      listener.onDelivery(key, outcome);
    } catch (RuntimeException e) {
      ignored(e);
    }
  }

  @Override
  public void onCycleStart(CycleInfo cycle) {
    try {
      listener.onCycleStart(cycle);
    } catch (RuntimeException e) {
      ignored(e);
    }
  }

  @Override
  public void onCycleEnd(CycleInfo cycle, KeyReport report, Duration elapsed) {
    try {
      listener.onCycleEnd(cycle, report, elapsed);
    } catch (RuntimeException e) {
      ignored(e);
    }
  }

  @Override
  public void onCommit(CycleInfo cycle, long firstSequence, long lastSequence) {
    try {
      listener.onCommit(cycle, firstSequence, lastSequence);
    } catch (RuntimeException e) {
      ignored(e);
    }
  }

  /** The listener's headers; none when it throws or returns null. */
  @Override
  public Map<String, String> onDeliveryStart(DeliveryCall call) {
    try {
      Map<String, String> headers = listener.onDeliveryStart(call);
      return headers == null ? Map.of() : headers;
    } catch (RuntimeException e) {
      ignored(e);
      return Map.of();
    }
  }

  @Override
  public void onDeliveryEnd(
      DeliveryCall call, int failed, @Nullable Throwable error, Duration elapsed) {
    try {
      listener.onDeliveryEnd(call, failed, error, elapsed);
    } catch (RuntimeException e) {
      ignored(e);
    }
  }
}
