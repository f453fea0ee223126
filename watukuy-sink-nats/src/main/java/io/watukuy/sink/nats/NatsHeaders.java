package io.watukuy.sink.nats;

import io.nats.client.impl.Headers;
import io.watukuy.ChangeEvent;
import io.watukuy.sink.CloudEvents;
import io.watukuy.sink.EventFormat;
import io.watukuy.sink.Sink;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The headers of an event's message (docs/sinks.md, "NATS JetStream"). Every message carries
 * {@value #EVENT_ID} (the event id, G2); {@code Nats-Msg-Id} (the delivery key) is set by the
 * publish options. With {@code format: cloudevents} the message is in the binary content mode of
 * the CloudEvents NATS protocol binding (version 1.0.3, section 3.1): each attribute, extensions
 * included, is a header {@code ce-<attribute>}, its value percent-encoded as section 3.1.3.2 says,
 * and there is no {@code Content-Type} header, which would mark the structured mode. Both formats
 * add the headers the engine's listeners gave the batch ({@link Sink#headers()}): with
 * watukuy-opentelemetry, the delivery's W3C {@code traceparent} and {@code tracestate}.
 */
final class NatsHeaders {
  /** The header that carries the event id. */
  static final String EVENT_ID = "watukuy-event-id";

  /** The prefix of a CloudEvents attribute's header. */
  static final String CE_PREFIX = "ce-";

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private NatsHeaders() {}

  /**
   * The headers of one event.
   *
   * @param event the event
   * @param format the sink's format
   * @return new headers
   */
  static Headers of(ChangeEvent<?> event, EventFormat format) {
    Headers headers = new Headers();
    headers.put(EVENT_ID, percentEncode(event.id()));
    if (format == EventFormat.CLOUDEVENTS)
      for (Map.Entry<String, String> a : CloudEvents.attributes(event).entrySet())
        headers.put(CE_PREFIX + a.getKey(), percentEncode(a.getValue()));
    // The listeners' headers (the delivery's W3C trace context; the engine let through printable
    // ASCII only), unless the message has the name.
    Sink.headers()
        .forEach(
            (name, value) -> {
              if (!headers.containsKey(name)) headers.put(name, value);
            });
    return headers;
  }

  /**
   * Percent-encodes a header value: space, double quote, percent and every character outside
   * U+0021..U+007E become {@code %XY} per UTF-8 byte, upper-case hex. A NATS header value may hold
   * printable ASCII only, and an identity or a poller name may hold anything.
   *
   * @param value an attribute's canonical string
   * @return printable ASCII
   */
  static String percentEncode(String value) {
    StringBuilder out = null;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c > ' ' && c < 0x7f && c != '"' && c != '%') {
        if (out != null) out.append(c);
        continue;
      }
      if (out == null) out = new StringBuilder(value.length() + 16).append(value, 0, i);
      int end = Character.isHighSurrogate(c) && i + 1 < value.length() ? i + 2 : i + 1;
      for (byte b : value.substring(i, end).getBytes(StandardCharsets.UTF_8))
        out.append('%').append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
      i = end - 1;
    }
    return out == null ? value : out.toString();
  }
}
