package io.watukuy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.EventType;
import io.watukuy.Handler;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A handler that only counts the events it is handed, by type, so that a phase can check it got
 * exactly the events it must and nothing else.
 */
final class EventCounter implements Handler<JsonNode> {
  private final AtomicLongArray counts = new AtomicLongArray(EventType.values().length);

  @Override
  public void handle(ChangeEvent<JsonNode> event) {
    counts.incrementAndGet(event.type().ordinal());
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
