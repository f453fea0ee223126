/**
 * The Kafka sink, {@code type: kafka} (docs/sinks.md, "Kafka"): {@code KafkaSink} and its {@code
 * SinkProvider}.
 */
module io.watukuy.sink.kafka {
  requires transitive io.watukuy;
  requires kafka.clients;
  requires static org.jspecify;

  exports io.watukuy.sink.kafka;

  provides io.watukuy.sink.SinkProvider with
      io.watukuy.sink.kafka.KafkaSinkProvider;
}
