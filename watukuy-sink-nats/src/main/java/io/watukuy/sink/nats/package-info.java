/**
 * The NATS JetStream sink (docs/sinks.md, "NATS JetStream"): {@link io.watukuy.sink.nats.NatsSink},
 * made from {@code sink: {type: nats}} by {@link io.watukuy.sink.nats.NatsSinkProvider}.
 */
@NullMarked
package io.watukuy.sink.nats;

import org.jspecify.annotations.NullMarked;
