package io.watukuy.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.ChangeEvent;
import io.watukuy.spi.OutboxRow;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The envelopes of the events one page commit just wrote, kept as the trees their outbox JSON was
 * written from, so that their first delivery right after the commit builds each {@link ChangeEvent}
 * from the tree instead of parsing the JSON text back (a first sync spent about an eighth of its
 * engine CPU on that parse). The outbox row stays the record of the event (G1, G4): the tree is
 * used only for the very row object the commit wrote, once, at its first attempt; any other row
 * (loaded again, retried, redelivered) is decoded from its stored JSON as before.
 *
 * <p>Filled by the committing thread before the page's events are handed to delivery and read by
 * handler threads, hence the concurrent map; bounded by one page of events, which the page's item
 * trees already hold in memory (G10).
 */
final class FreshEvents {
  /** None: every row is decoded from its JSON. */
  static final FreshEvents NONE = new FreshEvents(Map.of());

  private record Fresh(OutboxRow row, ObjectNode envelope, Instant observedAt) {}

  private final Map<Long, Fresh> bySequence;

  private FreshEvents(Map<Long, Fresh> bySequence) {
    this.bySequence = bySequence;
  }

  /** An empty set for one commit; {@link #add} fills it. */
  static FreshEvents forCommit() {
    return new FreshEvents(new ConcurrentHashMap<>());
  }

  /**
   * Keeps the envelope a row's JSON was written from.
   *
   * @param row the row as committed
   * @param envelope the tree whose text is {@code row.event()}; not changed afterwards
   * @param observedAt the envelope's {@code observedAt}, truncated to milliseconds as written
   */
  void add(OutboxRow row, ObjectNode envelope, Instant observedAt) {
    bySequence.put(row.sequence(), new Fresh(row, envelope, observedAt));
  }

  /**
   * The event of {@code row}: from the kept tree when this is the committed row at its first
   * attempt (and then never again: a second decoding parses the JSON, so a handler that changed the
   * data it was handed cannot change what a redelivery sees), else from the stored JSON.
   *
   * @throws IllegalStateException if the data cannot be read as {@code type}
   */
  <T> ChangeEvent<T> toEvent(OutboxRow row, Class<T> type) {
    Fresh f = bySequence.isEmpty() ? null : bySequence.remove(row.sequence());
    if (f == null || f.row != row || row.attempts() != 0) return Envelope.toEvent(row, type);
    return Envelope.toEvent(row, type, f.envelope, f.observedAt);
  }

  /** Forgets every kept tree once delivery of the page returned. */
  void clear() {
    bySequence.clear();
  }

  /** For a test: how many trees are kept. */
  int size() {
    return bySequence.size();
  }

  /** For a test: the sequences kept. */
  List<Long> sequences() {
    return List.copyOf(bySequence.keySet());
  }
}
