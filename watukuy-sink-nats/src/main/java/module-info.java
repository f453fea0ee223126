/**
 * The NATS JetStream sink: {@code io.watukuy.sink.nats.NatsSink}, the {@code nats} type of {@code
 * sink:} (docs/sinks.md, "NATS JetStream").
 */
module io.watukuy.sink.nats {
  requires transitive io.watukuy;
  requires io.nats.jnats;
  requires org.slf4j;
  requires static org.jspecify;

  exports io.watukuy.sink.nats;

  provides io.watukuy.sink.SinkProvider with
      io.watukuy.sink.nats.NatsSinkProvider;
}
