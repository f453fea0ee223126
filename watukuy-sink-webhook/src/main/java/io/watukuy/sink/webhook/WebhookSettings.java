package io.watukuy.sink.webhook;

import io.watukuy.sink.Destination;
import io.watukuy.sink.EventFormat;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link WebhookSink} does (docs/sinks.md, "Webhooks"); the {@code sink: {type: webhook}}
 * keys of the same names. Immutable; {@link #toString()} shows no secret.
 *
 * @param url where to POST: an {@code http} or {@code https} URL, which may use {@code {{source}}}
 *     and {@code {{partition}}} (URL-encoded where substituted)
 * @param secret the Standard Webhooks signing secret
 * @param batch false (the default): one event per request; true: one batch per request, a JSON
 *     array
 * @param timeout how long to wait to connect, and then for the answer; default {@link
 *     #DEFAULT_TIMEOUT}
 * @param headers extra request headers, e.g. an {@code Authorization}; their values are treated as
 *     secrets and never shown
 * @param success a rule a 2xx body must also meet, or null for none
 * @param format the event envelope or CloudEvents structured JSON
 * @since 0.2
 */
public record WebhookSettings(
    Destination url,
    SigningSecret secret,
    boolean batch,
    Duration timeout,
    Map<String, String> headers,
    @Nullable SuccessRule success,
    EventFormat format) {
  /** The default {@code timeout}: 10 seconds. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  /**
   * Checks and copies the settings.
   *
   * @throws NullPointerException if an argument but {@code success} is null
   * @throws IllegalArgumentException if {@code timeout} is not positive, or {@code url} is not an
   *     http or https URL (the message shows it redacted)
   */
  public WebhookSettings {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(secret, "secret");
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(format, "format");
    headers = Map.copyOf(headers);
    if (timeout.isZero() || timeout.isNegative())
      throw new IllegalArgumentException("timeout must be positive, but was " + timeout);
    String problem = WebhookSinkProvider.problem(url);
    if (problem != null) throw new IllegalArgumentException("url " + problem);
  }

  /**
   * One event per request, the envelope format, the default timeout, no extra header and no body
   * rule.
   *
   * @param url where to POST
   * @param secret the signing secret
   * @return the settings
   */
  public static WebhookSettings of(String url, SigningSecret secret) {
    return new WebhookSettings(
        Destination.parse(url),
        secret,
        false,
        DEFAULT_TIMEOUT,
        Map.of(),
        null,
        EventFormat.ENVELOPE);
  }

  /**
   * These settings with {@code batch}.
   *
   * @param batch true for one batch per request
   * @return a copy
   */
  public WebhookSettings withBatch(boolean batch) {
    return new WebhookSettings(url, secret, batch, timeout, headers, success, format);
  }

  /**
   * These settings with {@code timeout}.
   *
   * @param timeout positive
   * @return a copy
   */
  public WebhookSettings withTimeout(Duration timeout) {
    return new WebhookSettings(url, secret, batch, timeout, headers, success, format);
  }

  /**
   * These settings with {@code headers}.
   *
   * @param headers extra request headers
   * @return a copy
   */
  public WebhookSettings withHeaders(Map<String, String> headers) {
    return new WebhookSettings(url, secret, batch, timeout, headers, success, format);
  }

  /**
   * These settings with {@code success}.
   *
   * @param success a body rule, or null
   * @return a copy
   */
  public WebhookSettings withSuccess(@Nullable SuccessRule success) {
    return new WebhookSettings(url, secret, batch, timeout, headers, success, format);
  }

  /**
   * These settings with {@code format}.
   *
   * @param format the format
   * @return a copy
   */
  public WebhookSettings withFormat(EventFormat format) {
    return new WebhookSettings(url, secret, batch, timeout, headers, success, format);
  }

  /**
   * The settings with the URL redacted and no header value or secret.
   *
   * @return e.g. {@code WebhookSettings[url=https://h/hook?token=***, batch=false, ...]}
   */
  @Override
  public String toString() {
    return "WebhookSettings[url="
        + RedactedUrl.of(url.toString())
        + ", secret="
        + secret
        + ", batch="
        + batch
        + ", timeout="
        + timeout
        + ", headers="
        + headers.keySet()
        + ", success="
        + success
        + ", format="
        + format.wire()
        + "]";
  }
}
