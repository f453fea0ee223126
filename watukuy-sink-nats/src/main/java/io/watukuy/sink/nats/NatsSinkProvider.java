package io.watukuy.sink.nats;

import io.watukuy.sink.Destination;
import io.watukuy.sink.Sink;
import io.watukuy.sink.SinkConfig;
import io.watukuy.sink.SinkProvider;
import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Makes a {@link NatsSink} from {@code sink: {type: nats, ...}} (docs/sinks.md, "NATS JetStream").
 * Keys: {@code url} (required), {@code subject} (default {@value
 * NatsSinkSettings#DEFAULT_SUBJECT}), {@code stream} (default {@value
 * NatsSinkSettings#DEFAULT_STREAM}), {@code createStream} (default true), {@code duplicateWindow}
 * (default 2m), {@code ackTimeout} (default 10s), {@code token}, {@code user} with {@code
 * password}, {@code credentials} (a file, relative to the config), {@code format}; any other key is
 * refused. The token and the password are secrets: write them as {@code ${ENV}} or {@code
 * ${file:PATH}}.
 *
 * @since 0.2
 */
public final class NatsSinkProvider implements SinkProvider {
  /** For {@link java.util.ServiceLoader}. */
  public NatsSinkProvider() {}

  /** {@code nats}. */
  @Override
  public String type() {
    return "nats";
  }

  /**
   * Reads and checks the settings; connects nothing.
   *
   * @throws io.watukuy.ConfigException naming the key and the value (a URL redacted) when one is
   *     missing or invalid
   */
  @Override
  public Sink create(SinkConfig config) {
    config.only(
        "url",
        "subject",
        "stream",
        "createStream",
        "duplicateWindow",
        "ackTimeout",
        "token",
        "user",
        "password",
        "credentials");
    String url = config.required("url", "the NATS server, nats://host:4222");
    try {
      NatsServerUrl.parse(url);
    } catch (IllegalArgumentException e) {
      throw config.error("url", e.getMessage());
    }
    Destination subject =
        config.has("subject")
            ? config.destination("subject", "the subject to publish to")
            : Destination.parse(NatsSinkSettings.DEFAULT_SUBJECT);
    String problem = Subjects.checkTemplate(subject);
    if (problem != null) throw config.error("subject", problem);
    // Then each poller's subject (SinkConfig#keys): its name or partition may break a token.
    if (config.has("subject"))
      config.destination("subject", "the subject to publish to", NatsSinkProvider::subject);
    String stream =
        config.has("stream")
            ? config.required("stream", "the JetStream stream")
            : NatsSinkSettings.DEFAULT_STREAM;
    problem = Streams.checkName(stream);
    if (problem != null) throw config.error("stream", problem);
    Duration window =
        positive(config, "duplicateWindow", NatsSinkSettings.DEFAULT_DUPLICATE_WINDOW);
    Duration ackTimeout = positive(config, "ackTimeout", NatsSinkSettings.DEFAULT_ACK_TIMEOUT);
    String token = config.string("token");
    if (token != null && token.isBlank()) throw config.error("token", "is empty");
    String user = config.string("user");
    String password = config.string("password");
    if (user != null && user.isBlank()) throw config.error("user", "is empty");
    if (password != null && password.isEmpty()) throw config.error("password", "is empty");
    if (user != null && password == null)
      throw config.error("password", "missing: user needs a password (e.g. \"${NATS_PASSWORD}\")");
    if (password != null && user == null)
      throw config.error("user", "missing: a password needs its user");
    Path credentials = config.path("credentials");
    return new NatsSink(
        new NatsSinkSettings(
            url,
            subject,
            stream,
            config.bool("createStream", true),
            window,
            ackTimeout,
            token,
            user,
            password,
            credentials,
            config.format()));
  }

  private static Duration positive(SinkConfig config, String key, Duration fallback) {
    Duration d = config.duration(key, fallback);
    if (d == null || d.isZero())
      throw config.error(key, "'" + config.string(key) + "' must be longer than 0");
    return d;
  }

  /** Why a rendered subject is not one NATS accepts, or null. */
  private static @Nullable String subject(String rendered) {
    for (String token : rendered.split("\\.", -1)) {
      String problem = Subjects.checkToken(token);
      if (problem != null) return "subject '" + rendered + "' " + problem;
    }
    return null;
  }
}
