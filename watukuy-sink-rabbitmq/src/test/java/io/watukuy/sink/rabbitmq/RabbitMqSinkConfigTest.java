package io.watukuy.sink.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.watukuy.ConfigException;
import io.watukuy.sink.EventFormat;
import io.watukuy.sink.SinkConfig;
import io.watukuy.sink.SinkProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The {@code sink: {type: rabbitmq}} settings (docs/sinks.md, "RabbitMQ"): defaults, refusals that
 * name the key, a password that never shows, and what {@code open()} finds on the machine's broker.
 */
class RabbitMqSinkConfigTest {
  private static SinkConfig config(Map<String, ?> settings) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("type", "rabbitmq");
    m.putAll(settings);
    return SinkConfig.of(m, Path.of("."));
  }

  private static RabbitMqSink sink(Map<String, ?> settings) {
    return RabbitMqSink.create(config(settings));
  }

  @Test
  void theProviderIsFoundByTypeRabbitmq() {
    assertThat(ServiceLoader.load(SinkProvider.class).stream().map(p -> p.get().type()))
        .contains("rabbitmq");
  }

  @Test
  void defaultsAreRoutingKeySourceNoDeclareThirtySecondConfirmsAndTheEnvelope() {
    RabbitMqSettings s = sink(Map.of("uri", TestRabbit.URI, "exchange", "x")).settings();
    assertThat(s.routingKey().toString()).isEqualTo("{{source}}");
    assertThat(s.declare()).isFalse();
    assertThat(s.confirmTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.format()).isEqualTo(EventFormat.ENVELOPE);
  }

  @Test
  void anUnknownKeyIsRefusedNamingIt() {
    assertThatThrownBy(() -> sink(Map.of("uri", TestRabbit.URI, "exchange", "x", "topic", "t")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sink.topic: unknown key");
  }

  @Test
  void aMissingUriOrExchangeIsRefusedNamingIt() {
    assertThatThrownBy(() -> sink(Map.of("exchange", "x")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("missing uri");
    assertThatThrownBy(() -> sink(Map.of("uri", TestRabbit.URI)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("missing exchange");
  }

  @Test
  void aRoutingKeyWithAnotherPlaceholderThanSourceOrPartitionIsRefused() {
    assertThatThrownBy(
            () ->
                sink(Map.of("uri", TestRabbit.URI, "exchange", "x", "routingKey", "{{identity}}")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sink.routingKey")
        .hasMessageContaining("{{identity}}");
  }

  @Test
  void aZeroConfirmTimeoutIsRefused() {
    assertThatThrownBy(
            () -> sink(Map.of("uri", TestRabbit.URI, "exchange", "x", "confirmTimeout", "0s")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sink.confirmTimeout");
  }

  @Test
  void aUriOfAnotherSchemeIsRefusedWithoutRepeatingItsPassword() {
    assertThatThrownBy(() -> sink(Map.of("uri", "http://guest:hunter2@h/", "exchange", "x")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sink.uri: must start with amqp:// or amqps://")
        .message()
        .doesNotContain("hunter2");
  }

  @Test
  void theNameAndTheSettingsRedactThePassword() {
    RabbitMqSink s = sink(Map.of("uri", "amqp://app:hunter2@127.0.0.1:5672/prod", "exchange", "x"));
    assertThat(s.name()).isEqualTo("rabbitmq amqp://app:[redacted]@127.0.0.1:5672/prod exchange x");
    assertThat(s.settings().toString()).doesNotContain("hunter2");
  }

  @Test
  void credentialsTheBrokerRefusesAreAConfigErrorNamingTheSinkWithoutThePassword() {
    RabbitMqSink s =
        sink(Map.of("uri", "amqp://guest:not-the-password@127.0.0.1:5672/%2F", "exchange", "x"));
    try {
      assertThatThrownBy(s::open)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("sink rabbitmq amqp://guest:[redacted]@127.0.0.1:5672")
          .hasMessageContaining("refused the credentials")
          .message()
          .doesNotContain("not-the-password");
    } finally {
      s.close();
    }
  }

  @Test
  void aMissingExchangeIsAConfigErrorAtOpenNamingTheSinkAndTheExchange() {
    String missing = "watukuy-test-missing-" + UUID.randomUUID();
    RabbitMqSink s = sink(Map.of("uri", TestRabbit.URI, "exchange", missing));
    try {
      assertThatThrownBy(s::open)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("sink " + s.name())
          .hasMessageContaining("exchange '" + missing + "' does not exist")
          .hasMessageContaining("declare: true");
    } finally {
      s.close();
    }
  }

  @Test
  void declareTrueDeclaresAMissingExchangeAsADurableTopicExchange() throws Exception {
    String name = "watukuy-test-declared-" + UUID.randomUUID();
    RabbitMqSink s = sink(Map.of("uri", TestRabbit.URI, "exchange", name, "declare", true));
    ConnectionFactory f = new ConnectionFactory();
    f.setUri(TestRabbit.URI);
    try (Connection c = f.newConnection()) {
      try {
        s.open();
        assertThat(s.health().healthy()).isTrue();
        Channel ch = c.createChannel();
        // A passive declare throws when the exchange does not exist.
        ch.exchangeDeclarePassive(name);
        ch.exchangeDelete(name);
      } finally {
        s.close();
      }
    }
  }
}
