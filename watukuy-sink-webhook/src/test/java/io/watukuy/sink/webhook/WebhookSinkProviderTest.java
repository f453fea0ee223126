package io.watukuy.sink.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.ConfigException;
import io.watukuy.sink.EventFormat;
import io.watukuy.sink.Sink;
import io.watukuy.sink.SinkConfig;
import io.watukuy.sink.SinkProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** The {@code sink: {type: webhook}} section: its keys, defaults and refusals. */
class WebhookSinkProviderTest {
  private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

  private static SinkConfig config(Map<String, ?> extra) {
    Map<String, Object> all = new HashMap<>();
    all.put("type", "webhook");
    all.put("url", "https://hooks.example.com/orders");
    all.put("secret", SECRET);
    all.putAll(extra);
    all.values().removeIf(v -> v == null);
    return SinkConfig.of(all, Path.of("."));
  }

  private static Map<String, Object> without(String key) {
    Map<String, Object> m = new HashMap<>();
    m.put(key, null);
    return m;
  }

  @Test
  void theProviderIsFoundByItsType() {
    SinkProvider found =
        ServiceLoader.load(SinkProvider.class).stream()
            .map(ServiceLoader.Provider::get)
            .filter(p -> p.type().equals("webhook"))
            .findFirst()
            .orElseThrow();
    Sink sink = found.create(config(Map.of()));
    assertThat(sink.name()).isEqualTo("webhook https://hooks.example.com/orders");
  }

  @Test
  void theDefaultsAreOneEventPerRequestTenSecondsTheEnvelopeAndNoBodyRule() {
    WebhookSettings s = WebhookSinkProvider.settings(config(Map.of()));
    assertThat(s.batch()).isFalse();
    assertThat(s.timeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(s.format()).isEqualTo(EventFormat.ENVELOPE);
    assertThat(s.success()).isNull();
    assertThat(s.headers()).isEmpty();
  }

  @Test
  void everyKeyIsRead() {
    WebhookSettings s =
        WebhookSinkProvider.settings(
            config(
                Map.of(
                    "batch",
                    true,
                    "timeout",
                    "3s",
                    "format",
                    "cloudevents",
                    "headers",
                    Map.of("Authorization", "Bearer t"),
                    "success",
                    Map.of("pointer", "/status", "equals", "ok"))));
    assertThat(s.batch()).isTrue();
    assertThat(s.timeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(s.format()).isEqualTo(EventFormat.CLOUDEVENTS);
    assertThat(s.headers()).containsEntry("Authorization", "Bearer t");
    assertThat(s.success()).isEqualTo(new SuccessRule("/status", "ok"));
  }

  @Test
  void anUnknownKeyIsRefusedNamingIt() {
    assertThatThrownBy(() -> WebhookSinkProvider.settings(config(Map.of("retries", 3))))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("sink.retries: unknown key (expected one of");
  }

  @Test
  void aMissingUrlOrSecretIsRefusedNamingIt() {
    assertThatThrownBy(() -> WebhookSinkProvider.settings(config(without("url"))))
        .isInstanceOf(ConfigException.class)
        .hasMessage("sink: missing url (the receiver's http or https URL)");
    assertThatThrownBy(() -> WebhookSinkProvider.settings(config(without("secret"))))
        .isInstanceOf(ConfigException.class)
        .hasMessage("sink: missing secret (the Standard Webhooks signing secret, whsec_...)");
  }

  @Test
  void aBadSecretIsRefusedWithoutShowingIt() {
    assertThatThrownBy(
            () -> WebhookSinkProvider.settings(config(Map.of("secret", "whsec_c2hvcnQ="))))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("sink.secret: is a secret of 5 bytes")
        .hasMessageNotContaining("c2hvcnQ");
  }

  @Test
  void aUrlThatIsNotHttpIsRefusedShowingItRedacted() {
    assertThatThrownBy(
            () -> WebhookSinkProvider.settings(config(Map.of("url", "ftp://h/x?key=abc123"))))
        .isInstanceOf(ConfigException.class)
        .hasMessage("sink.url: 'ftp://h/x?key=***' is not an http or https URL");
    assertThatThrownBy(
            () ->
                WebhookSinkProvider.settings(
                    config(Map.of("url", "https://{{source}}.example.com/x"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("has a placeholder in its host");
    assertThatThrownBy(
            () -> WebhookSinkProvider.settings(config(Map.of("url", "https://h/{{identity}}"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("sink.url: '{{identity}}' cannot name a destination");
  }

  @Test
  void aZeroTimeoutIsRefused() {
    assertThatThrownBy(() -> WebhookSinkProvider.settings(config(Map.of("timeout", "0s"))))
        .isInstanceOf(ConfigException.class)
        .hasMessage("sink.timeout: '0s' must be more than zero");
  }

  @Test
  void aHeaderTheSinkSetsOrTheClientRefusesIsRefusedWithoutItsValue() {
    assertThatThrownBy(
            () ->
                WebhookSinkProvider.settings(config(Map.of("headers", Map.of("webhook-id", "x")))))
        .isInstanceOf(ConfigException.class)
        .hasMessage("sink.headers.webhook-id: is set by the sink itself (signature and format)");
    assertThatThrownBy(
            () ->
                WebhookSinkProvider.settings(
                    config(Map.of("headers", Map.of("Host", "secret-host-value")))))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("sink.headers.Host: cannot be sent")
        .hasMessageNotContaining("secret-host-value");
  }

  @Test
  void aSuccessRuleNeedsAPointerAndAValue() {
    assertThatThrownBy(
            () ->
                WebhookSinkProvider.settings(
                    config(Map.of("success", Map.of("pointer", "/status")))))
        .isInstanceOf(ConfigException.class)
        .hasMessage("sink.success: missing equals (the value that means success, e.g. ok)");
    assertThatThrownBy(
            () ->
                WebhookSinkProvider.settings(
                    config(Map.of("success", Map.of("pointer", "status", "equals", "ok")))))
        .isInstanceOf(ConfigException.class)
        .hasMessage("sink.success.pointer: 'status' is not a JSON Pointer (e.g. /status)");
  }

  @Test
  void settingsMadeInJavaRefuseAUrlThatIsNotHttpShowingItRedacted() {
    assertThatThrownBy(
            () -> WebhookSettings.of("ftp://u:pw@h/x?key=abc123", SigningSecret.parse(SECRET)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("url 'ftp://***@h/x?key=***' is not an http or https URL");
  }
}
