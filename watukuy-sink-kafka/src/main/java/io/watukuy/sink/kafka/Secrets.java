package io.watukuy.sink.kafka;

import java.util.Locale;
import java.util.Map;

/**
 * Keeps the values of secret client properties out of messages: a Kafka client error may quote a
 * property's value ({@code Invalid value ... for configuration ...}), and {@code sasl.jaas.config}
 * or {@code ssl.keystore.password} must never reach a log or an event's error history.
 */
final class Secrets {
  private static final String HIDDEN = "[hidden]";

  private Secrets() {}

  /**
   * Whether a client property holds a secret: a password, a JAAS config, a key, a token.
   *
   * @param key the property name
   * @return true for {@code sasl.jaas.config}, {@code ssl.*password}, {@code ssl.*key*} and
   *     anything naming a password, secret, token or credential
   */
  static boolean isSecret(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    return k.equals("sasl.jaas.config")
        || k.contains("password")
        || k.contains("secret")
        || k.contains("token")
        || k.contains("credential")
        || (k.startsWith("ssl.")
            && k.contains("key")
            && !k.contains("type")
            && !k.contains("algorithm")
            && !k.contains("location"));
  }

  /**
   * A message with the value of every secret property replaced by {@code [hidden]}.
   *
   * @param message a message that may quote property values; may be null
   * @param properties the client properties
   * @return the message, scrubbed; "" for null
   */
  static String scrub(String message, Map<String, String> properties) {
    if (message == null) return "";
    String out = message;
    for (Map.Entry<String, String> e : properties.entrySet())
      if (isSecret(e.getKey()) && !e.getValue().isEmpty()) out = out.replace(e.getValue(), HIDDEN);
    return out;
  }
}
