package io.watukuy.sink.kafka;

import io.watukuy.ChangeEvent;
import io.watukuy.sink.CloudEvents;
import io.watukuy.sink.EventFormat;
import io.watukuy.sink.Sink;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * An event as a Kafka record (docs/sinks.md, "Kafka"). The key is the event's ordering key, so the
 * default partitioner puts one key's records in one partition, in the order sent (G3). The value
 * and headers depend on the format:
 *
 * <ul>
 *   <li>{@code envelope}: the value is the event's JSON envelope; headers {@value #DELIVERY_KEY}
 *       (the delivery key {@code <event id>-<sequence>}, what a consumer deduplicates by) and
 *       {@value #EVENT_ID} (the event id, G2);
 *   <li>{@code cloudevents}: binary content mode of the CloudEvents Kafka protocol binding 1.0:
 *       each attribute of {@link CloudEvents#attributes} as a header {@code ce_<name>}, except
 *       {@code datacontenttype}, which is the {@code content-type} header; the value is {@link
 *       CloudEvents#data}. The record key is the {@code partitionkey} extension, as the binding's
 *       key mapping says.
 * </ul>
 *
 * <p>Both formats add the headers the engine's listeners gave the batch ({@link Sink#headers()}):
 * with watukuy-opentelemetry, the delivery's W3C {@code traceparent} and {@code tracestate}.
 */
final class KafkaRecords {
  /** The header with the delivery key, in the envelope format. */
  static final String DELIVERY_KEY = "watukuy-delivery-key";

  /** The header with the event id, in the envelope format. */
  static final String EVENT_ID = "watukuy-event-id";

  /** The CloudEvents Kafka binding's attribute header prefix. */
  static final String CE_PREFIX = "ce_";

  /** The CloudEvents Kafka binding's header for {@code datacontenttype}. */
  static final String CONTENT_TYPE = "content-type";

  private KafkaRecords() {}

  /**
   * The record of one event.
   *
   * @param topic the topic, already checked ({@link TopicName})
   * @param event the event
   * @param format envelope or CloudEvents binary mode
   * @return the record, partition left to the partitioner
   */
  static ProducerRecord<byte[], byte[]> of(String topic, ChangeEvent<?> event, EventFormat format) {
    List<Header> headers = new ArrayList<>();
    if (format == EventFormat.CLOUDEVENTS) {
      for (Map.Entry<String, String> a : CloudEvents.attributes(event).entrySet()) {
        String name = a.getKey().equals("datacontenttype") ? CONTENT_TYPE : CE_PREFIX + a.getKey();
        headers.add(header(name, a.getValue()));
      }
    } else {
      headers.add(header(DELIVERY_KEY, event.deliveryKey()));
      headers.add(header(EVENT_ID, event.id()));
    }
    // The listeners' headers (the delivery's W3C trace context), unless the record has the name.
    Set<String> named = new HashSet<>();
    for (Header h : headers) named.add(h.key());
    Sink.headers()
        .forEach(
            (name, value) -> {
              if (named.add(name)) headers.add(header(name, value));
            });
    return new ProducerRecord<>(
        topic, null, utf8(event.orderingKey()), format.body(event), headers);
  }

  private static Header header(String name, String value) {
    return new RecordHeader(name, utf8(value));
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
