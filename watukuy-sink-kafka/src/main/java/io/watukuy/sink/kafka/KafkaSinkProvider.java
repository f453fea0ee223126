package io.watukuy.sink.kafka;

import io.watukuy.PollerKey;
import io.watukuy.sink.Destination;
import io.watukuy.sink.Sink;
import io.watukuy.sink.SinkConfig;
import io.watukuy.sink.SinkProvider;
import java.util.Map;

/**
 * Makes a {@link KafkaSink} from a {@code sink: {type: kafka, ...}} section (docs/sinks.md,
 * "Kafka"):
 *
 * <pre>{@code
 * sink:
 *   type: kafka
 *   bootstrap: "127.0.0.1:9092"          # required: bootstrap.servers
 *   topic: "orders.{{partition}}"        # required: may use {{source}} and {{partition}}
 *   format: cloudevents                  # envelope (default) or cloudevents (binary mode)
 *   properties:                          # the client's own settings: TLS, SASL, tuning
 *     security.protocol: SASL_SSL
 *     sasl.mechanism: SCRAM-SHA-512
 *     sasl.jaas.config: "${KAFKA_JAAS}"
 * }</pre>
 *
 * <p>Every other key is refused, as are client properties the sink owns ({@link KafkaSettings}).
 *
 * @since 0.2
 */
public final class KafkaSinkProvider implements SinkProvider {
  /** Makes the provider; {@link java.util.ServiceLoader} calls it. */
  public KafkaSinkProvider() {}

  /**
   * {@code kafka}.
   *
   * @return the type name
   */
  @Override
  public String type() {
    return "kafka";
  }

  /**
   * The sink of a section; does not connect.
   *
   * @param config the section
   * @return the sink, not yet open
   * @throws io.watukuy.ConfigException for an unknown key, a missing {@code bootstrap} or {@code
   *     topic}, a topic that cannot be a Kafka topic name, or a property the sink owns
   */
  @Override
  public Sink create(SinkConfig config) {
    config.only("bootstrap", "topic", "properties");
    String bootstrap =
        config.required("bootstrap", "the brokers' host:port list, e.g. 127.0.0.1:9092");
    String badServer = Bootstrap.problem(bootstrap);
    if (badServer != null) throw config.error("bootstrap", badServer);
    // Each poller's topic is checked here (SinkConfig#keys), a stand-in below, the real one per
    // batch.
    Destination topic =
        config.destination(
            "topic", "the topic, may use {{source}} and {{partition}}", TopicName::problem);
    String sample = topic.render(PollerKey.of("source", "partition"));
    String problem = TopicName.problem(sample);
    if (problem != null) throw config.error("topic", "'" + topic + "': " + problem);
    Map<String, String> properties = config.strings("properties");
    SinkConfig props = config.child("properties");
    for (Map.Entry<String, String> e : properties.entrySet()) {
      String why = KafkaSettings.problem(e.getKey(), e.getValue());
      if (why != null) throw props.error(e.getKey(), why);
    }
    return new KafkaSink(new KafkaSettings(bootstrap, topic, properties, config.format()));
  }
}
