/**
 * The RabbitMQ sink (docs/sinks.md, "RabbitMQ"): {@link io.watukuy.sink.rabbitmq.RabbitMqSink}
 * publishes each event as a persistent message whose {@code message_id} is the delivery key, waits
 * for the broker's publisher confirms before a batch counts as delivered, and keeps order per
 * ordering key by publishing each batch on a channel of its own. {@link
 * io.watukuy.sink.rabbitmq.RabbitMqSinkProvider} makes it from a {@code sink: {type: rabbitmq}}
 * section.
 */
@NullMarked
package io.watukuy.sink.rabbitmq;

import org.jspecify.annotations.NullMarked;
