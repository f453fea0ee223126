package io.watukuy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.BatchHandler;
import io.watukuy.ChangeEvent;
import io.watukuy.EventType;
import io.watukuy.Handler;
import io.watukuy.Poller;
import io.watukuy.Watukuy;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A handler that only counts the events it is handed, by type, so that a phase can check it got
 * exactly the events it must and nothing else. Attached as a {@link BatchHandler} ({@value #BATCH},
 * the default: one ack write per batch) or as a {@link Handler} per event ({@value #SINGLE}).
 */
final class EventCounter implements Handler<JsonNode>, BatchHandler<JsonNode> {
  /** Deliver in batches of {@code delivery.batchSize}. */
  static final String BATCH = "batch";

  /** Deliver one event per handler call. */
  static final String SINGLE = "single";

  private final AtomicLongArray counts = new AtomicLongArray(EventType.values().length);
  private final String mode;

  /**
   * @param mode {@value #BATCH} or {@value #SINGLE}
   * @throws IllegalArgumentException for another mode
   */
  EventCounter(String mode) {
    if (!mode.equals(BATCH) && !mode.equals(SINGLE))
      throw new IllegalArgumentException(
          "--handler must be single or batch, but was '" + mode + "'");
    this.mode = mode;
  }

  /** Attaches this counter to the poller, as a batch handler or a handler per event. */
  void attach(Watukuy engine, Poller<JsonNode> poller) {
    if (mode.equals(BATCH)) engine.onBatch(poller, (BatchHandler<JsonNode>) this);
    else engine.on(poller, (Handler<JsonNode>) this);
  }

  @Override
  public void handle(ChangeEvent<JsonNode> event) {
    counts.incrementAndGet(event.type().ordinal());
  }

  @Override
  public BatchResult handle(List<ChangeEvent<JsonNode>> events) {
    for (ChangeEvent<JsonNode> event : events) counts.incrementAndGet(event.type().ordinal());
    return BatchResult.ok();
  }

  /** The counts so far, in {@link EventType} order. */
  Counts now() {
    return new Counts(
        counts.get(EventType.CREATED.ordinal()),
        counts.get(EventType.UPDATED.ordinal()),
        counts.get(EventType.DELETED.ordinal()));
  }

  /** Events by type. */
  record Counts(long created, long updated, long deleted) {
    long total() {
      return created + updated + deleted;
    }

    Counts minus(Counts before) {
      return new Counts(
          created - before.created, updated - before.updated, deleted - before.deleted);
    }

    @Override
    public String toString() {
      return created + " created, " + updated + " updated, " + deleted + " deleted";
    }
  }
}
