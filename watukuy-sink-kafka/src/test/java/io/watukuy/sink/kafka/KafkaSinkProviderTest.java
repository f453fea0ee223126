package io.watukuy.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.ConfigException;
import io.watukuy.PollerKey;
import io.watukuy.sink.Sink;
import io.watukuy.sink.SinkConfig;
import io.watukuy.sink.SinkProvider;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * The {@code sink: {type: kafka}} section (docs/sinks.md, "Kafka"): found by {@link ServiceLoader},
 * unknown keys and the properties the sink owns refused with the key named, topic names checked as
 * Kafka checks them, and no property value in the sink's name.
 */
class KafkaSinkProviderTest {
  private static Sink create(Map<String, ?> settings) {
    Map<String, Object> all = new LinkedHashMap<>();
    all.put("type", "kafka");
    all.putAll(settings);
    return new KafkaSinkProvider().create(SinkConfig.of(all, Path.of(".")));
  }

  @Test
  void serviceLoaderFindsTheProviderOfTypeKafka() {
    List<String> types =
        ServiceLoader.load(SinkProvider.class).stream().map(p -> p.get().type()).toList();
    assertThat(types).contains("kafka");
  }

  @Test
  void theNameIsTheTopicTemplateAndNeverAPropertyValue() {
    Sink sink =
        create(
            Map.of(
                "bootstrap", "127.0.0.1:9092",
                "topic", "orders.{{partition}}",
                "properties",
                    Map.of(
                        "sasl.jaas.config", "ScramLoginModule required password=\"s3cret\";",
                        "ssl.truststore.password", "tr0st")));
    assertThat(sink.name()).isEqualTo("kafka topic orders.{{partition}}");
    assertThat(sink.toString()).doesNotContain("s3cret").doesNotContain("tr0st");
  }

  @Test
  void anUnknownKeyIsRefusedNamingItAndTheKnownOnes() {
    assertThatThrownBy(
            () -> create(Map.of("bootstrap", "127.0.0.1:9092", "topic", "t", "brokers", "x")))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "sink.brokers: unknown key (expected one of bootstrap, format, properties, topic,"
                + " type)");
  }

  @Test
  void aBootstrapThatIsNotAHostPortListIsRefusedNamingTheKeyAndTheValue() {
    assertThatThrownBy(() -> create(Map.of("bootstrap", 9092, "topic", "t")))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "sink.bootstrap: '9092' is not a host:port list: '9092' needs a host and a port from 1"
                + " to 65535, e.g. 127.0.0.1:9092");
    assertThatThrownBy(() -> create(Map.of("bootstrap", "a:9092,b:99999", "topic", "t")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("sink.bootstrap: 'a:9092,b:99999' is not a host:port list");
    assertThat(create(Map.of("bootstrap", "a:9092, b:9093", "topic", "t")).name())
        .isEqualTo("kafka topic t");
  }

  @Test
  void aTopicWithPartitionForAPollerWithoutPartitionsIsRefusedNamingThePoller() {
    Map<String, Object> all = new LinkedHashMap<>();
    all.put("type", "kafka");
    all.put("bootstrap", "127.0.0.1:9092");
    all.put("topic", "orders.{{partition}}");
    SinkConfig section =
        SinkConfig.of(all, Path.of("."))
            .withKeys(List.of(PollerKey.of("orders", "eu"), PollerKey.of("refunds", "")));

    assertThatThrownBy(() -> new KafkaSinkProvider().create(section))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "sink.topic: 'orders.{{partition}}' uses {{partition}}, but poller refunds has no"
                + " partitions (it would render empty): remove it, or give that poller a sink: of"
                + " its own");
  }

  @Test
  void bootstrapAndTopicAreRequired() {
    assertThatThrownBy(() -> create(Map.of("topic", "t")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("sink: missing bootstrap");
    assertThatThrownBy(() -> create(Map.of("bootstrap", "127.0.0.1:9092")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("sink: missing topic");
  }

  @Test
  void aTopicThatCannotBeAKafkaTopicNameIsRefusedNamingTheValue() {
    assertThatThrownBy(() -> create(Map.of("bootstrap", "b:9092", "topic", "orders/{{source}}")))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "sink.topic: 'orders/{{source}}': topic name 'orders/source' may only hold letters,"
                + " digits, '.', '_' and '-'");
    assertThatThrownBy(() -> create(Map.of("bootstrap", "b:9092", "topic", "..")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'.' and '..' are refused");
    assertThatThrownBy(() -> create(Map.of("bootstrap", "b:9092", "topic", "t".repeat(250))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("250 characters long, at most 249");
    assertThatThrownBy(() -> create(Map.of("bootstrap", "b:9092", "topic", "{{identity}}")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("only {{source}} and {{partition}}");
  }

  @Test
  void propertiesThatWouldBreakTheGuaranteesAreRefusedNamingTheProperty() {
    assertThatThrownBy(
            () ->
                create(
                    Map.of("bootstrap", "b:9092", "topic", "t", "properties", Map.of("acks", "1"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("sink.properties.acks: must stay 'all'");
    assertThatThrownBy(
            () ->
                create(
                    Map.of(
                        "bootstrap",
                        "b:9092",
                        "topic",
                        "t",
                        "properties",
                        Map.of("enable.idempotence", "false"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("sink.properties.enable.idempotence: must stay true");
    assertThat(
            create(
                    Map.of(
                        "bootstrap", "b:9092",
                        "topic", "t",
                        "properties", Map.of("acks", "all", "linger.ms", 20)))
                .name())
        .isEqualTo("kafka topic t");
  }

  @Test
  void aTopicNameIsOneTo249LettersDigitsDotsUnderscoresAndDashes() {
    assertThat(TopicName.problem("orders.eu_1-x")).isNull();
    assertThat(TopicName.problem("t".repeat(249))).isNull();
    assertThat(TopicName.problem("")).isNotNull();
    assertThat(TopicName.problem(".")).isNotNull();
    assertThat(TopicName.problem("a b")).isNotNull();
    assertThat(TopicName.problem("ordérs")).isNotNull();
  }

  @Test
  void aSecretPropertysValueIsHiddenInMessages() {
    Map<String, String> p =
        Map.of(
            "sasl.jaas.config", "module required password=\"pw1\";",
            "ssl.keystore.password", "pw2",
            "linger.ms", "20");
    assertThat(Secrets.scrub("bad sasl.jaas.config module required password=\"pw1\"; and pw2", p))
        .isEqualTo("bad sasl.jaas.config [hidden] and [hidden]");
    assertThat(Secrets.scrub("linger.ms 20", p)).isEqualTo("linger.ms 20");
  }
}
