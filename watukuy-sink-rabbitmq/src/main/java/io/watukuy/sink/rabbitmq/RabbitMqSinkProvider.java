package io.watukuy.sink.rabbitmq;

import io.watukuy.sink.Sink;
import io.watukuy.sink.SinkConfig;
import io.watukuy.sink.SinkProvider;

/**
 * Makes {@link RabbitMqSink} for {@code sink: {type: rabbitmq, uri: ..., exchange: ...}}
 * (docs/sinks.md, "RabbitMQ"); found with {@link java.util.ServiceLoader}.
 *
 * @since 0.2
 */
public final class RabbitMqSinkProvider implements SinkProvider {
  /** For {@link java.util.ServiceLoader}. */
  public RabbitMqSinkProvider() {}

  /**
   * {@code rabbitmq}.
   *
   * @return the type name
   */
  @Override
  public String type() {
    return "rabbitmq";
  }

  /**
   * The sink, not connected yet.
   *
   * @param config the section: {@code uri}, {@code exchange} required; {@code routingKey}, {@code
   *     declare}, {@code confirmTimeout}, {@code format} optional; any other key is refused
   * @return the sink
   * @throws io.watukuy.ConfigException naming the key that is missing, unknown or invalid
   */
  @Override
  public Sink create(SinkConfig config) {
    return RabbitMqSink.create(config);
  }
}
