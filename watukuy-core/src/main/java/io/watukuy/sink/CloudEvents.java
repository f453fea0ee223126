package io.watukuy.sink;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.ChangeEvent;
import io.watukuy.EventType;
import io.watukuy.PollerKey;
import io.watukuy.internal.Envelope;
import io.watukuy.internal.Json;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An event as a CloudEvents 1.0 event (docs/sinks.md, "CloudEvents"): the attributes, the data, and
 * the structured JSON form. Protocol bindings (Kafka {@code ce_} headers, AMQP {@code cloudEvents:}
 * application properties, HTTP {@code ce-} headers) put {@link #attributes} under their own prefix
 * and {@link #data} in the body; stdout, files and structured webhooks write {@link #structured}.
 *
 * <p>The mapping:
 *
 * <ul>
 *   <li>{@code id} = the delivery key {@code <event id>-<sequence>} ({@link
 *       ChangeEvent#deliveryKey()}), unique per outbox row, the same on a redelivery;
 *   <li>{@code source} = {@code /watukuy/<poller>}, and {@code /watukuy/<poller>/<partition>} for a
 *       partition, each segment percent-encoded ({@link #source});
 *   <li>{@code type} = {@code io.watukuy.item.created}, {@code .updated} or {@code .deleted};
 *   <li>{@code subject} = the item's identity; {@code time} = {@code observedAt} (RFC 3339, UTC,
 *       milliseconds);
 *   <li>{@code datacontenttype} = {@code application/json}; {@code data} = {@code {"item": ...,
 *       "previous": ...}} ({@code previous} null unless the poller retains payloads);
 *   <li>extensions {@code eventid} (the event id, G2), {@code partitionkey} (the ordering key),
 *       {@code sequence} (zero-padded to 19 digits, so it sorts as text) and {@code lane};
 *   <li>inside a handler call whose listeners gave a W3C trace context ({@link Sink#headers()},
 *       watukuy-opentelemetry), the distributed tracing extension: {@code traceparent}, and {@code
 *       tracestate} when the trace has one. The delivery's trace context, not a stored one, so a
 *       redelivery carries the redelivery's.
 * </ul>
 *
 * @since 0.2
 */
public final class CloudEvents {
  /** The {@code specversion} written. */
  public static final String SPEC_VERSION = "1.0";

  /** The {@code datacontenttype} written. */
  public static final String CONTENT_TYPE = "application/json";

  /** The structured mode's media type, for an HTTP {@code Content-Type}. */
  public static final String STRUCTURED_CONTENT_TYPE = "application/cloudevents+json";

  /** The distributed tracing extension's attributes, named as the W3C headers they carry. */
  private static final List<String> TRACE_CONTEXT = List.of("traceparent", "tracestate");

  private CloudEvents() {}

  /**
   * The context attributes, extensions included, in a fixed order: {@code specversion, id, source,
   * type, subject, time, datacontenttype, eventid, partitionkey, sequence, lane}, then {@code
   * traceparent} and {@code tracestate} when the handler call running on this thread has them in
   * {@link Sink#headers()}. Every value is a string (a binding's header value).
   *
   * @param event the event
   * @return a new, ordered map
   */
  public static Map<String, String> attributes(ChangeEvent<?> event) {
    Map<String, String> a = new LinkedHashMap<>();
    a.put("specversion", SPEC_VERSION);
    a.put("id", event.deliveryKey());
    a.put("source", source(event.key()));
    a.put("type", type(event.type()));
    a.put("subject", event.identity());
    a.put("time", Envelope.instant(event.observedAt()));
    a.put("datacontenttype", CONTENT_TYPE);
    a.put("eventid", event.id());
    a.put("partitionkey", event.orderingKey());
    a.put("sequence", sequence(event.sequence()));
    a.put("lane", event.lane().wire());
    Map<String, String> headers = Sink.headers();
    for (String name : TRACE_CONTEXT) {
      String value = headers.get(name);
      if (value != null) a.put(name, value);
    }
    return a;
  }

  /**
   * The event's {@code data}: {@code {"item": <data>, "previous": <previous>}} as UTF-8 JSON.
   *
   * @param event the event
   * @return the JSON bytes
   */
  public static byte[] data(ChangeEvent<?> event) {
    return dataNode(event).toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The structured JSON form: the attributes as members, then {@code data} as JSON. One line.
   *
   * @param event the event
   * @return the JSON text
   */
  public static String structured(ChangeEvent<?> event) {
    ObjectNode n = Json.MAPPER.createObjectNode();
    attributes(event).forEach(n::put);
    n.set("data", dataNode(event));
    return n.toString();
  }

  /**
   * The {@code source} of a key's events: a URI reference, {@code /watukuy/orders} or {@code
   * /watukuy/orders/eu}.
   *
   * @param key the poller and partition
   * @return the URI reference
   */
  public static String source(PollerKey key) {
    String poller = "/watukuy/" + segment(key.poller());
    return key.partition().isEmpty() ? poller : poller + "/" + segment(key.partition());
  }

  /**
   * The {@code type} of a change: {@code io.watukuy.item.created} (updated, deleted).
   *
   * @param type the change
   * @return the CloudEvents type
   */
  public static String type(EventType type) {
    return "io.watukuy.item." + type.wire();
  }

  /**
   * The {@code sequence} extension: the outbox sequence zero-padded to 19 digits, so that text
   * order is number order.
   *
   * @param sequence the event's sequence, at least 0
   * @return 19 digits
   */
  public static String sequence(long sequence) {
    String digits = Long.toString(sequence);
    return "0".repeat(Math.max(0, 19 - digits.length())) + digits;
  }

  private static ObjectNode dataNode(ChangeEvent<?> event) {
    ObjectNode data = Json.MAPPER.createObjectNode();
    data.set("item", Json.MAPPER.valueToTree(event.data()));
    data.set("previous", Json.MAPPER.valueToTree(event.previous()));
    return data;
  }

  private static String segment(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
