package io.watukuy.sink;

import io.watukuy.ChangeEvent;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * How a sink writes an event (the {@code format:} of a {@code sink:} section; docs/sinks.md).
 *
 * @since 0.2
 */
public enum EventFormat {
  /**
   * The event's own JSON envelope ({@link ChangeEvent#toJson()}; docs/architecture.md, "The event
   * envelope"); a sink with headers adds the delivery key and the event id as headers. The default.
   */
  ENVELOPE("envelope"),
  /**
   * CloudEvents 1.0 ({@link CloudEvents}): structured JSON where the event is a body of its own
   * (stdout, file, webhook), binary mode (attributes as headers, {@link CloudEvents#data} as the
   * body) on Kafka, AMQP and NATS.
   */
  CLOUDEVENTS("cloudevents");

  private final String wire;

  EventFormat(String wire) {
    this.wire = wire;
  }

  /**
   * The name in a config.
   *
   * @return {@code envelope} or {@code cloudevents}
   */
  public String wire() {
    return wire;
  }

  /**
   * The format named {@code name}.
   *
   * @param name {@code envelope} or {@code cloudevents}, any case
   * @return the format
   * @throws IllegalArgumentException for another name, with a message listing both
   */
  public static EventFormat fromWire(String name) {
    for (EventFormat f : values()) if (f.wire.equals(name.toLowerCase(Locale.ROOT))) return f;
    throw new IllegalArgumentException("'" + name + "' is not a format (envelope or cloudevents)");
  }

  /**
   * The event as one JSON document: the envelope, or the CloudEvents structured form.
   *
   * @param event the event
   * @return one line of JSON
   */
  public String json(ChangeEvent<?> event) {
    return this == ENVELOPE ? event.toJson() : CloudEvents.structured(event);
  }

  /**
   * The body of a message whose metadata travels as headers: the envelope for {@link #ENVELOPE},
   * the CloudEvents {@code data} for {@link #CLOUDEVENTS} (binary mode).
   *
   * @param event the event
   * @return UTF-8 JSON
   */
  public byte[] body(ChangeEvent<?> event) {
    return this == ENVELOPE
        ? event.toJson().getBytes(StandardCharsets.UTF_8)
        : CloudEvents.data(event);
  }
}
