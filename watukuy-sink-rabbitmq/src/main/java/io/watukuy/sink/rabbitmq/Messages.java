package io.watukuy.sink.rabbitmq;

import com.rabbitmq.client.AMQP;
import io.watukuy.ChangeEvent;
import io.watukuy.sink.CloudEvents;
import io.watukuy.sink.EventFormat;
import io.watukuy.sink.Sink;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How an event becomes an AMQP message (docs/sinks.md, "RabbitMQ"): persistent, {@code message_id}
 * = the delivery key, header {@value #EVENT_ID_HEADER} = the event id, {@code content_type} {@code
 * application/json}; with CloudEvents, binary mode with every attribute but {@code datacontenttype}
 * as a header under {@value #CLOUDEVENTS_PREFIX}.
 */
final class Messages {
  /**
   * The header that carries the event id (G2), which repeats on purpose; never deduplicate by it.
   */
  static final String EVENT_ID_HEADER = "watukuy-event-id";

  /**
   * The CloudEvents AMQP protocol binding's prefix for attributes in application properties (its
   * §3.1.3.1). RabbitMQ keeps 0-9-1 headers as AMQP 1.0 application properties, so an AMQP 1.0
   * consumer and the CloudEvents SDKs' AMQP readers find them where the binding says.
   */
  static final String CLOUDEVENTS_PREFIX = "cloudEvents:";

  /** AMQP 0-9-1 delivery mode 2: the broker writes the message to disk in a durable queue. */
  static final int PERSISTENT = 2;

  private Messages() {}

  static AMQP.BasicProperties properties(ChangeEvent<?> event, EventFormat format) {
    Map<String, Object> headers = new LinkedHashMap<>();
    headers.put(EVENT_ID_HEADER, event.id());
    if (format == EventFormat.CLOUDEVENTS)
      // datacontenttype is the message's content_type (the binding's §3.1.1), not a header.
      CloudEvents.attributes(event)
          .forEach(
              (name, value) -> {
                if (!name.equals("datacontenttype")) headers.put(CLOUDEVENTS_PREFIX + name, value);
              });
    // The listeners' headers (the delivery's W3C trace context), unless the message has the name.
    Sink.headers().forEach(headers::putIfAbsent);
    return new AMQP.BasicProperties.Builder()
        .deliveryMode(PERSISTENT)
        .messageId(event.deliveryKey())
        .contentType(CloudEvents.CONTENT_TYPE)
        .timestamp(Date.from(event.observedAt()))
        .headers(headers)
        .build();
  }

  static byte[] body(ChangeEvent<?> event, EventFormat format) {
    return format.body(event);
  }
}
