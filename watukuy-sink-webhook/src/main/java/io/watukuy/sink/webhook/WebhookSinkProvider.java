package io.watukuy.sink.webhook;

import io.watukuy.PollerKey;
import io.watukuy.TimeSource;
import io.watukuy.sink.Destination;
import io.watukuy.sink.Sink;
import io.watukuy.sink.SinkConfig;
import io.watukuy.sink.SinkProvider;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Makes a {@link WebhookSink} from a {@code sink: {type: webhook, ...}} section (docs/sinks.md,
 * "Webhooks"). Keys: {@code url} (required), {@code secret} (required, {@code whsec_...}), {@code
 * batch} (default false), {@code timeout} (default 10s), {@code headers} (a map), {@code success}
 * ({@code pointer} and {@code equals}), {@code format}; any other key is refused. Errors name the
 * key and, except for secrets and header values, the value (a URL with its secrets redacted).
 *
 * @since 0.2
 */
public final class WebhookSinkProvider implements SinkProvider {
  private final TimeSource time;

  /** The provider {@link java.util.ServiceLoader} makes: sinks on the system clock. */
  public WebhookSinkProvider() {
    this(TimeSource.system());
  }

  /**
   * A provider whose sinks read {@code time} for {@code webhook-timestamp}.
   *
   * @param time the clock
   */
  public WebhookSinkProvider(TimeSource time) {
    this.time = time;
  }

  /**
   * {@code webhook}.
   *
   * @return the type name
   */
  @Override
  public String type() {
    return "webhook";
  }

  @Override
  public Sink create(SinkConfig config) {
    return new WebhookSink(settings(config), time);
  }

  /**
   * Reads and checks a section.
   *
   * @param config the {@code sink:} section
   * @return the settings
   * @throws io.watukuy.ConfigException naming the key that is missing or wrong
   */
  public static WebhookSettings settings(SinkConfig config) {
    config.only("url", "secret", "batch", "timeout", "headers", "success");
    Destination url = config.destination("url", "the receiver's http or https URL");
    checkUrl(config, url);
    SigningSecret secret;
    try {
      secret =
          SigningSecret.parse(
              config.required("secret", "the Standard Webhooks signing secret, whsec_..."));
    } catch (IllegalArgumentException e) {
      throw config.error("secret", e.getMessage());
    }
    boolean batch = config.bool("batch", false);
    Duration timeout = config.duration("timeout", WebhookSettings.DEFAULT_TIMEOUT);
    if (timeout == null || timeout.isZero())
      throw config.error("timeout", "'" + config.string("timeout") + "' must be more than zero");
    Map<String, String> headers = config.strings("headers");
    checkHeaders(config, headers);
    return new WebhookSettings(
        url, secret, batch, timeout, headers, success(config), config.format());
  }

  private static void checkUrl(SinkConfig config, Destination url) {
    String problem = problem(url);
    if (problem != null) throw config.error("url", problem);
  }

  /**
   * What is wrong with a URL template, or null: it must render to an absolute {@code http} or
   * {@code https} URL whose host has no placeholder.
   *
   * @param url the template
   * @return the problem, quoting the URL redacted; null when the URL is fine
   */
  static @Nullable String problem(Destination url) {
    String shown = "'" + RedactedUrl.of(url.toString()) + "'";
    URI uri;
    try {
      uri = new URI(url.render(WebhookSink.encoded(PollerKey.of("poller", "partition"))));
    } catch (URISyntaxException e) {
      return shown + " is not a URL: " + e.getReason();
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https"))
      return shown + " is not an http or https URL";
    if (uri.getHost() == null || uri.getHost().isEmpty()) return shown + " has no host";
    if (url.toString().matches("(?i)^https?://[^/]*\\{\\{.*"))
      return shown + " has a placeholder in its host: only the path and query may vary";
    return null;
  }

  private static void checkHeaders(SinkConfig config, Map<String, String> headers) {
    SinkConfig section = config.child("headers");
    for (Map.Entry<String, String> h : headers.entrySet()) {
      String name = h.getKey().toLowerCase(Locale.ROOT);
      if (name.startsWith("webhook-") || name.equals("content-type"))
        throw section.error(h.getKey(), "is set by the sink itself (signature and format)");
      try {
        HttpRequest.newBuilder(URI.create("http://127.0.0.1/")).header(h.getKey(), h.getValue());
      } catch (IllegalArgumentException e) {
        // The JDK's message may quote the value, which may be a secret: say it in our words.
        throw section.error(
            h.getKey(),
            "cannot be sent: a header the HTTP client sets itself, or a name or value with"
                + " characters a header cannot carry");
      }
    }
  }

  private static @Nullable SuccessRule success(SinkConfig config) {
    if (!config.has("success")) return null;
    SinkConfig rule = config.child("success");
    rule.only("pointer", "equals");
    String pointer =
        rule.required("pointer", "a JSON Pointer into the answer's body, e.g. /status");
    String equals = rule.required("equals", "the value that means success, e.g. ok");
    try {
      return new SuccessRule(pointer, equals);
    } catch (IllegalArgumentException e) {
      throw rule.error("pointer", "'" + pointer + "' is not a JSON Pointer (e.g. /status)");
    }
  }
}
