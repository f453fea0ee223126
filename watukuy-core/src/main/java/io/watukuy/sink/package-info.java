/**
 * Sinks (docs/sinks.md): where a poller's events go when the destination is a system rather than
 * the application's own code — a topic, a queue, a webhook, a table. A {@link io.watukuy.sink.Sink}
 * is a {@link io.watukuy.BatchHandler} with a lifecycle ({@code open}, {@code health}, {@code
 * close}); {@link io.watukuy.sink.SinkProvider} makes one from a {@link io.watukuy.sink.SinkConfig}
 * (the command line's {@code sink:} section), found with {@link java.util.ServiceLoader}. {@link
 * io.watukuy.sink.EventFormat} and {@link io.watukuy.sink.CloudEvents} say how an event is written;
 * {@link io.watukuy.sink.Destination} names where, per key.
 *
 * <p>Every sink deduplicates by the delivery key {@code <event id>-<sequence>} ({@link
 * io.watukuy.ChangeEvent#deliveryKey()}), never by the event id alone: an id names an observation
 * and repeats on purpose (an item going A → B → A; a replay), a delivery key repeats only when the
 * same outbox row is delivered again.
 */
@NullMarked
package io.watukuy.sink;

import org.jspecify.annotations.NullMarked;
