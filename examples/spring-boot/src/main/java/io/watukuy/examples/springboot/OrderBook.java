package io.watukuy.examples.springboot;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.EventType;
import java.util.Map;
import java.util.TreeMap;

/**
 * The application's own state, kept by the handler: each order's latest status by id. A deleted
 * order leaves the book. Thread-safe, as handler calls may run in parallel across keys.
 */
public final class OrderBook {
  private final Map<String, String> statuses = new TreeMap<>();

  /**
   * Applies one change.
   *
   * @param event a created, updated or deleted order
   */
  public synchronized void apply(ChangeEvent<JsonNode> event) {
    JsonNode order = event.data();
    if (event.type() == EventType.DELETED || order == null) statuses.remove(event.identity());
    else statuses.put(event.identity(), order.path("status").asText());
  }

  /**
   * The book now.
   *
   * @return order id to status, sorted by id; a copy
   */
  public synchronized Map<String, String> statuses() {
    return new TreeMap<>(statuses);
  }
}
