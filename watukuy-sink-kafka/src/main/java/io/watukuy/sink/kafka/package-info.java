/**
 * The Kafka sink (docs/sinks.md, "Kafka"): {@link io.watukuy.sink.kafka.KafkaSink} writes each
 * event as one record with an idempotent producer ({@code acks=all}), keyed by the event's ordering
 * key so that one key stays in one partition and in order (G3); {@link
 * io.watukuy.sink.kafka.KafkaSinkProvider} makes it from a {@code sink: {type: kafka}} section.
 */
@NullMarked
package io.watukuy.sink.kafka;

import org.jspecify.annotations.NullMarked;
