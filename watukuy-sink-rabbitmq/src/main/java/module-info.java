/**
 * The RabbitMQ sink ({@code type: rabbitmq}): a poller's events as persistent messages to an
 * exchange, with publisher confirms (docs/sinks.md, "RabbitMQ").
 */
module io.watukuy.sink.rabbitmq {
  requires transitive io.watukuy;
  requires com.rabbitmq.client;
  requires static org.jspecify;

  exports io.watukuy.sink.rabbitmq;

  provides io.watukuy.sink.SinkProvider with
      io.watukuy.sink.rabbitmq.RabbitMqSinkProvider;
}
