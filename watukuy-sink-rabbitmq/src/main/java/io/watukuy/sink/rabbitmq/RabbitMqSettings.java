package io.watukuy.sink.rabbitmq;

import io.watukuy.sink.Destination;
import io.watukuy.sink.EventFormat;
import io.watukuy.sink.SinkConfig;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Objects;

/**
 * The settings of a RabbitMQ sink, read from a {@code sink: {type: rabbitmq, ...}} section
 * (docs/sinks.md, "RabbitMQ"). Immutable; {@link #toString()} redacts the password.
 *
 * @param uri {@code amqp://user:password@host:port/vhost} or {@code amqps://...}; a secret (its
 *     password never reaches a message: see {@link #redactedUri()})
 * @param exchange the exchange events are published to; {@code ""} is the default exchange, which
 *     routes by queue name
 * @param routingKey the routing key per poller and partition; default {@code {{source}}}
 * @param declare whether {@code open()} declares the exchange (durable, type {@code topic}) when it
 *     is missing; default false, when a missing exchange is a config error
 * @param confirmTimeout how long a batch waits for the broker's publisher confirms before it counts
 *     as not delivered (the destination is unavailable); default 30 s, more than zero
 * @param format {@code envelope} (the default) or {@code cloudevents} (binary mode)
 * @since 0.2
 */
public record RabbitMqSettings(
    String uri,
    String exchange,
    Destination routingKey,
    boolean declare,
    Duration confirmTimeout,
    EventFormat format) {
  /** The default {@code confirmTimeout}. */
  public static final Duration DEFAULT_CONFIRM_TIMEOUT = Duration.ofSeconds(30);

  /** What {@code uri} looks like, for messages. */
  static final String URI_SHAPE = "amqp://user:password@host:port/vhost";

  /**
   * Checks the settings.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException for a URI that is not {@code amqp://} or {@code amqps://} (the
   *     message does not repeat it) or a confirm timeout of zero or less
   */
  public RabbitMqSettings {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(exchange, "exchange");
    Objects.requireNonNull(routingKey, "routingKey");
    Objects.requireNonNull(confirmTimeout, "confirmTimeout");
    Objects.requireNonNull(format, "format");
    parse(uri);
    if (confirmTimeout.isZero() || confirmTimeout.isNegative())
      throw new IllegalArgumentException("confirmTimeout must be more than zero");
  }

  /**
   * Reads a {@code sink:} section, refusing unknown keys.
   *
   * @param config the section
   * @return the settings
   * @throws io.watukuy.ConfigException for a missing, unknown or invalid key, naming it; a bad
   *     {@code uri} is described without repeating it, since it may hold a password
   */
  public static RabbitMqSettings from(SinkConfig config) {
    config.only("uri", "exchange", "routingKey", "declare", "confirmTimeout");
    String uri = config.required("uri", URI_SHAPE);
    try {
      parse(uri);
    } catch (IllegalArgumentException e) {
      throw config.error("uri", e.getMessage());
    }
    // Not required(): "" is allowed, and names the default exchange.
    String exchange = config.string("exchange");
    if (exchange == null)
      throw config.error("missing exchange (the exchange to publish to; \"\" for the default one)");
    if (exchange.length() > 255)
      throw config.error("exchange", "is longer than 255 characters, the most AMQP allows");
    Destination routingKey =
        config.has("routingKey")
            ? config.destination(
                "routingKey",
                "the routing key",
                rendered ->
                    rendered.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 255
                        ? "longer than the 255 bytes AMQP allows"
                        : null)
            : Destination.parse("{{source}}");
    Duration timeout = config.duration("confirmTimeout", DEFAULT_CONFIRM_TIMEOUT);
    if (timeout == null || timeout.isZero())
      throw config.error("confirmTimeout", "must be more than zero, e.g. 30s");
    return new RabbitMqSettings(
        uri, exchange, routingKey, config.bool("declare", false), timeout, config.format());
  }

  /**
   * The URI with its password replaced by {@code [redacted]}: safe for names, messages and logs.
   *
   * @return e.g. {@code amqp://guest:[redacted]@127.0.0.1:5672/%2F}
   */
  public String redactedUri() {
    URI u = parse(uri);
    String user = u.getRawUserInfo();
    if (user == null) return uri;
    int colon = user.indexOf(':');
    String shown = colon < 0 ? user : user.substring(0, colon) + ":[redacted]";
    return u.getScheme()
        + "://"
        + shown
        + "@"
        + u.getRawAuthority().substring(u.getRawAuthority().lastIndexOf('@') + 1)
        + (u.getRawPath() == null ? "" : u.getRawPath())
        + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
  }

  /**
   * The settings with the password redacted.
   *
   * @return a description safe for logs
   */
  @Override
  public String toString() {
    return "RabbitMqSettings[uri="
        + redactedUri()
        + ", exchange="
        + exchange
        + ", routingKey="
        + routingKey
        + ", declare="
        + declare
        + ", confirmTimeout="
        + confirmTimeout
        + ", format="
        + format.wire()
        + "]";
  }

  private static URI parse(String uri) {
    URI u;
    try {
      u = new URI(uri);
    } catch (URISyntaxException e) {
      // The input is not quoted: it may hold a password.
      throw new IllegalArgumentException(
          "is not a valid URI (" + e.getReason() + "); expected " + URI_SHAPE);
    }
    if (!"amqp".equalsIgnoreCase(u.getScheme()) && !"amqps".equalsIgnoreCase(u.getScheme()))
      throw new IllegalArgumentException("must start with amqp:// or amqps://, like " + URI_SHAPE);
    if (u.getHost() == null || u.getHost().isEmpty())
      throw new IllegalArgumentException("has no host; expected " + URI_SHAPE);
    return u;
  }
}
