package io.watukuy.sink.kafka;

import io.watukuy.sink.Destination;
import io.watukuy.sink.EventFormat;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link KafkaSink} needs: where the brokers are, the topic template, the client properties
 * and the format. Immutable.
 *
 * <p>The client's own properties ({@code properties:} in YAML) carry TLS, SASL and tuning ({@code
 * linger.ms}, {@code compression.type}...). The sink sets what its guarantees rest on and refuses
 * overrides of it ({@link #problem}): {@code enable.idempotence=true} and {@code acks=all} (G1, G3:
 * a retried send neither duplicates nor reorders a partition's records), byte-array serializers, no
 * transactions. It bounds every wait with defaults the user may override: {@code max.block.ms}
 * {@value #DEFAULT_MAX_BLOCK_MS} (metadata and buffer space in {@code send}), {@code
 * request.timeout.ms} {@value #DEFAULT_REQUEST_TIMEOUT_MS} and {@code delivery.timeout.ms} {@value
 * #DEFAULT_DELIVERY_TIMEOUT_MS} (a record's whole life, retries included).
 *
 * @param bootstrap the {@code bootstrap.servers} list, {@code host:port[,host:port...]}
 * @param topic the topic, a template with {@code {{source}}} and {@code {{partition}}}
 * @param properties the client properties as given, in order
 * @param format how each event becomes a record
 * @since 0.2
 */
public record KafkaSettings(
    String bootstrap, Destination topic, Map<String, String> properties, EventFormat format) {
  /** {@code max.block.ms} unless overridden: how long {@code send} waits for metadata. */
  public static final int DEFAULT_MAX_BLOCK_MS = 10_000;

  /** {@code request.timeout.ms} unless overridden: one request to a broker. */
  public static final int DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

  /** {@code delivery.timeout.ms} unless overridden: a record's send, retries included. */
  public static final int DEFAULT_DELIVERY_TIMEOUT_MS = 30_000;

  /**
   * Copies the properties.
   *
   * @throws NullPointerException if an argument is null
   */
  public KafkaSettings {
    Objects.requireNonNull(bootstrap, "bootstrap");
    Objects.requireNonNull(topic, "topic");
    properties = Map.copyOf(properties);
    Objects.requireNonNull(format, "format");
  }

  /**
   * What is wrong with a client property the sink owns, for the config's error message.
   *
   * @param key a property name
   * @param value its value
   * @return why the sink refuses it, or null when the client may have it
   */
  static @Nullable String problem(String key, String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    return switch (key) {
      case "bootstrap.servers" -> "set it with the sink's 'bootstrap' key";
      case "key.serializer", "value.serializer" ->
          "the sink writes bytes (the ordering key, the event's JSON) and sets it itself";
      case "transactional.id" ->
          "the sink does not use transactions: its records are deduplicated by the delivery key";
      case "enable.idempotence" ->
          v.equals("true")
              ? null
              : "must stay true: without it a retried send can duplicate or reorder records (G3)";
      case "acks" ->
          v.equals("all") || v.equals("-1")
              ? null
              : "must stay 'all': a record is acknowledged only once every in-sync replica has it"
                  + " (G1)";
      default -> null;
    };
  }

  /**
   * The producer's properties: the user's, then what the sink's guarantees need.
   *
   * @return a new properties object
   */
  Properties producer() {
    Properties p = new Properties();
    p.setProperty("max.block.ms", Integer.toString(DEFAULT_MAX_BLOCK_MS));
    p.setProperty("request.timeout.ms", Integer.toString(DEFAULT_REQUEST_TIMEOUT_MS));
    p.setProperty("delivery.timeout.ms", Integer.toString(DEFAULT_DELIVERY_TIMEOUT_MS));
    p.putAll(properties);
    p.setProperty("bootstrap.servers", bootstrap);
    p.setProperty("enable.idempotence", "true");
    p.setProperty("acks", "all");
    return p;
  }

  /**
   * The admin client's properties for {@link KafkaSink#open()}: the connection's (TLS, SASL) and
   * the bootstrap list; producer tuning is left out, since the admin client would warn about it.
   *
   * @return a new properties object
   */
  Properties admin() {
    Properties p = new Properties();
    p.setProperty("request.timeout.ms", Long.toString(openTimeout().toMillis()));
    p.setProperty("default.api.timeout.ms", Long.toString(openTimeout().toMillis()));
    properties.forEach(
        (k, v) -> {
          if (k.startsWith("security.")
              || k.startsWith("ssl.")
              || k.startsWith("sasl.")
              || k.startsWith("client.")
              || k.startsWith("socket.")
              || k.startsWith("reconnect.")
              || k.equals("request.timeout.ms")) p.setProperty(k, v);
        });
    p.setProperty("bootstrap.servers", bootstrap);
    return p;
  }

  /**
   * How long {@link KafkaSink#open()} waits for the brokers: {@code max.block.ms}, the same bound
   * as a send's wait for metadata.
   *
   * @return the timeout
   */
  Duration openTimeout() {
    String v = properties.get("max.block.ms");
    try {
      return Duration.ofMillis(v == null ? DEFAULT_MAX_BLOCK_MS : Long.parseLong(v.trim()));
    } catch (NumberFormatException e) {
      return Duration.ofMillis(DEFAULT_MAX_BLOCK_MS);
    }
  }
}
