package io.watukuy.bench;

import io.watukuy.ChangeEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One event of the sink bench as the raw clients write it: the fields a sink puts in its record,
 * message or row, taken from an event the engine made, so that the raw client writes the same
 * records as the sink (the same envelope bytes, record key and delivery key).
 *
 * @param orderingKey the record key (Kafka), the ordering key
 * @param deliveryKey what a consumer deduplicates by: {@code <event id>-<sequence>}
 * @param eventId the event id
 * @param type {@code created}, {@code updated} or {@code deleted}
 * @param identity the item's identity
 * @param sequence the outbox sequence
 * @param envelope the event's JSON envelope, UTF-8: the record's value, the message's body, the
 *     row's {@code body}
 */
record SinkRecord(
    String orderingKey,
    String deliveryKey,
    String eventId,
    String type,
    String identity,
    long sequence,
    byte[] envelope) {

  /** The record of an engine's event, in the envelope format. */
  static SinkRecord of(ChangeEvent<?> event) {
    return new SinkRecord(
        event.orderingKey(),
        event.deliveryKey(),
        event.id(),
        event.type().wire(),
        event.identity(),
        event.sequence(),
        event.toJson().getBytes(StandardCharsets.UTF_8));
  }

  /** The envelope as text. */
  String json() {
    return new String(envelope, StandardCharsets.UTF_8);
  }

  /**
   * Splits records into batches of {@code size}, in order: what the engine hands a sink.
   *
   * @param records the records in sequence order
   * @param size the batch size, at least 1
   * @return the batches, each a view of {@code records}
   */
  static List<List<SinkRecord>> batches(List<SinkRecord> records, int size) {
    List<List<SinkRecord>> out = new ArrayList<>();
    for (int from = 0; from < records.size(); from += size)
      out.add(records.subList(from, Math.min(records.size(), from + size)));
    return out;
  }
}
