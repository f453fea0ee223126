package io.watukuy.sink.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.watukuy.ConfigException;
import io.watukuy.sink.SinkConfig;
import io.watukuy.testing.NatsServerProcess;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NATS sink's credentials against a nats-server the test starts with authentication (issue 18,
 * §7; docs/sinks.md, "NATS JetStream"): the right token or user and password publish; a wrong one
 * is a start error naming the sink, with no secret in it or in the sink's name.
 */
class NatsAuthTest {
  private static final String TOKEN = "s3cret-t0ken-right";
  private static final String WRONG_TOKEN = "s3cret-t0ken-wrong";
  private static final String PASSWORD = "pa55-w0rd-right";
  private static final String WRONG_PASSWORD = "pa55-w0rd-wrong";

  @TempDir Path dir;

  private static NatsSink sink(String url, Map<String, String> auth) {
    Map<String, Object> settings = new java.util.LinkedHashMap<>();
    settings.put("type", "nats");
    settings.put("url", url);
    settings.put("stream", "WKT_AUTH");
    settings.put("subject", "wkt-auth.{{source}}");
    settings.put("ackTimeout", "3s");
    settings.putAll(auth);
    return (NatsSink) new NatsSinkProvider().create(SinkConfig.of(settings, Path.of(".")));
  }

  @Test
  void theRightTokenOpensAndCreatesTheStream() throws Exception {
    try (NatsServerProcess server = NatsServerProcess.withToken(dir, TOKEN);
        NatsSink sink = sink(server.url(), Map.of("token", TOKEN))) {
      sink.open();
      assertThat(sink.health().healthy()).isTrue();
      try (Connection c =
          Nats.connect(Options.builder().server(server.url()).token(TOKEN.toCharArray()).build())) {
        assertThat(c.jetStreamManagement().getStreamNames()).contains("WKT_AUTH");
      }
    }
  }

  @Test
  void aWrongTokenIsAStartErrorNamingTheSinkWithoutTheToken() throws Exception {
    try (NatsServerProcess server = NatsServerProcess.withToken(dir, TOKEN);
        NatsSink sink = sink(server.url(), Map.of("token", WRONG_TOKEN))) {
      assertThatThrownBy(sink::open)
          .isInstanceOf(ConfigException.class)
          .hasMessageStartingWith("sink " + sink.name() + ": ")
          .hasMessageContaining(
              "refused the credentials (Authentication error connecting to NATS server: Authorization Violation)")
          .hasMessageNotContaining(WRONG_TOKEN)
          .hasMessageNotContaining(TOKEN);
      assertThat(sink.name()).doesNotContain(WRONG_TOKEN);
      assertThat(sink.toString()).doesNotContain(WRONG_TOKEN);
    }
  }

  @Test
  void theRightUserAndPasswordOpen() throws Exception {
    try (NatsServerProcess server = NatsServerProcess.withUser(dir, "watukuy", PASSWORD);
        NatsSink sink = sink(server.url(), Map.of("user", "watukuy", "password", PASSWORD))) {
      sink.open();
      assertThat(sink.health().healthy()).isTrue();
    }
  }

  @Test
  void aWrongPasswordIsAStartErrorNamingTheSinkWithoutAnyPassword() throws Exception {
    try (NatsServerProcess server = NatsServerProcess.withUser(dir, "watukuy", PASSWORD);
        NatsSink sink = sink(server.url(), Map.of("user", "watukuy", "password", WRONG_PASSWORD))) {
      assertThatThrownBy(sink::open)
          .isInstanceOf(ConfigException.class)
          .hasMessageStartingWith("sink " + sink.name() + ": ")
          .hasMessageNotContaining(WRONG_PASSWORD)
          .hasMessageNotContaining(PASSWORD);
    }
  }

  @Test
  void aPasswordWithoutItsUserIsAConfigErrorNamingTheKey() {
    assertThatThrownBy(() -> sink("nats://127.0.0.1:4222", Map.of("password", PASSWORD)))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("sink.user: missing")
        .hasMessageNotContaining(PASSWORD);
  }

  @Test
  void theSettingsNeverShowTheTokenOrThePassword() {
    NatsSinkSettings settings =
        NatsSinkSettings.of("nats://127.0.0.1:4222").withAuth(TOKEN, "watukuy", PASSWORD, null);
    assertThat(settings.toString())
        .doesNotContain(TOKEN)
        .doesNotContain(PASSWORD)
        .contains("token=***", "password=***");
  }
}
