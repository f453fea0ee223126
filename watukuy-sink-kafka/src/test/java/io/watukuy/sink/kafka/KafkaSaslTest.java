package io.watukuy.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ConfigException;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Watukuy;
import io.watukuy.sink.SinkConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SASL through the client's own properties (issue 18, §2 and §7; docs/sinks.md, "Kafka"), on the
 * module's broker's {@code SASL_PLAINTEXT} listener with {@code PLAIN}: the section as the YAML
 * gives it (the password already read from {@code ${ENV}} or {@code ${file:}} by the command line)
 * writes every event; a wrong password is a start error naming the sink, and no password, right or
 * wrong, is in any message.
 */
@ExtendWith(KafkaBroker.class)
class KafkaSaslTest {
  private static final String WRONG_PASSWORD = "k4fka-wr0ng-pa55";
  private static final PollerKey ORDERS = PollerKey.of("orders");
  private static final Map<String, String> SHORT_WAITS =
      Map.of("max.block.ms", "3000", "request.timeout.ms", "3000", "delivery.timeout.ms", "6000");

  private final SinkEngine f = new SinkEngine();

  private static KafkaSink sink(String bootstrap, String topic, String password) {
    Map<String, Object> properties = new LinkedHashMap<>(SHORT_WAITS);
    properties.put("security.protocol", "SASL_PLAINTEXT");
    properties.put("sasl.mechanism", "PLAIN");
    properties.put(
        "sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
            + KafkaBroker.SASL_USER
            + "\" password=\""
            + password
            + "\";");
    Map<String, Object> section = new LinkedHashMap<>();
    section.put("type", "kafka");
    section.put("bootstrap", bootstrap);
    section.put("topic", topic);
    section.put("properties", properties);
    return (KafkaSink) new KafkaSinkProvider().create(SinkConfig.of(section, Path.of(".")));
  }

  @Test
  void theRightPasswordWritesEveryEvent(KafkaBroker broker) throws Exception {
    broker.createTopic("sasl-orders", 1, Map.of());
    KafkaSink sink = sink(broker.saslBootstrap(), "sasl-orders", KafkaBroker.SASL_PASSWORD);
    sink.open();
    Poller<JsonNode> orders = f.timestamp("orders").build();
    Watukuy w = f.engine(Runnable::run, 1, 10).poller(orders).sink(orders, sink).build();
    try {
      for (int i = 1; i <= 3; i++) f.api.put("o" + i, Map.of("n", i));
      KeyReport r = w.tick().key(ORDERS).orElseThrow();
      assertThat(r.error()).as("cycle error").isNull();
      assertThat(f.store.countPending(ORDERS)).isZero();
    } finally {
      w.close();
    }
    assertThat(TopicReader.readAll(broker.bootstrap(), "sasl-orders", Duration.ofSeconds(20)))
        .hasSize(3);
  }

  @Test
  void aWrongPasswordIsAStartErrorNamingTheSinkWithNoPasswordInIt(KafkaBroker broker)
      throws Exception {
    broker.createTopic("sasl-refused", 1, Map.of());
    KafkaSink sink = sink(broker.saslBootstrap(), "sasl-refused", WRONG_PASSWORD);
    try {
      assertThatThrownBy(sink::open)
          .isInstanceOf(ConfigException.class)
          .hasMessageStartingWith("kafka topic sasl-refused: the brokers refused the credentials")
          .hasMessageNotContaining(WRONG_PASSWORD)
          .hasMessageNotContaining(KafkaBroker.SASL_PASSWORD);

      // Through the engine, the same refusal is the key's error, the events stay pending.
      Poller<JsonNode> orders = f.timestamp("orders").build();
      Watukuy w = f.engine(Runnable::run, 1, 10).poller(orders).sink(orders, sink).build();
      try {
        f.api.put("o1", Map.of("n", 1));
        KeyReport r = w.tick().key(ORDERS).orElseThrow();
        assertThat(r.error()).isNotNull();
        assertThat(String.valueOf(r.error()))
            .contains("kafka topic sasl-refused")
            .doesNotContain(WRONG_PASSWORD);
        Throwable cause = r.error();
        while (cause != null) {
          assertThat(String.valueOf(cause.getMessage())).doesNotContain(WRONG_PASSWORD);
          cause = cause.getCause();
        }
        assertThat(f.store.countPending(ORDERS)).isEqualTo(1);
      } finally {
        w.close();
      }
    } finally {
      sink.close();
    }
  }
}
