package io.watukuy.sink.nats;

import io.watukuy.sink.Destination;
import io.watukuy.sink.EventFormat;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link NatsSink} connects to and how it publishes (docs/sinks.md, "NATS JetStream"): the
 * {@code sink: {type: nats, ...}} keys as values. Immutable.
 *
 * @param url the server, {@code nats://[user:password@]host:port}; its credentials are secrets
 * @param subject the subject template ({@code {{source}}}, {@code {{partition}}}); default {@value
 *     #DEFAULT_SUBJECT}
 * @param stream the JetStream stream that stores the events; default {@value #DEFAULT_STREAM}
 * @param createStream whether {@link NatsSink#open()} creates the stream when it is missing (file
 *     storage, the subjects under the template's fixed tokens, {@code duplicateWindow}); default
 *     true. When false, a missing stream is a {@link io.watukuy.ConfigException} at open
 * @param duplicateWindow how long the stream remembers a {@code Nats-Msg-Id} to drop a repeat of
 *     it, for a stream it creates; default {@link #DEFAULT_DUPLICATE_WINDOW} (2 minutes)
 * @param ackTimeout how long a batch waits for the stream's acks, and a connect for the server,
 *     before the batch counts as unavailable (pending, retried); default {@link
 *     #DEFAULT_ACK_TIMEOUT} (10 seconds)
 * @param token an authentication token (the server's {@code --auth}), or null; a secret
 * @param user a user name (the server's {@code --user}), or null; needs {@code password}
 * @param password the user's password, or null; a secret; needs {@code user}
 * @param credentials a NATS credentials file (JWT and NKey seed), or null
 * @param format the event's form: the envelope, or CloudEvents binary mode
 * @since 0.2
 */
public record NatsSinkSettings(
    String url,
    Destination subject,
    String stream,
    boolean createStream,
    Duration duplicateWindow,
    Duration ackTimeout,
    @Nullable String token,
    @Nullable String user,
    @Nullable String password,
    @Nullable Path credentials,
    EventFormat format) {
  /** The default {@code subject}. */
  public static final String DEFAULT_SUBJECT = "watukuy.{{source}}";

  /** The default {@code stream}. */
  public static final String DEFAULT_STREAM = "WATUKUY";

  /** The default {@code duplicateWindow}: the server's own default. */
  public static final Duration DEFAULT_DUPLICATE_WINDOW = Duration.ofMinutes(2);

  /** The default {@code ackTimeout}. */
  public static final Duration DEFAULT_ACK_TIMEOUT = Duration.ofSeconds(10);

  /**
   * Checks the values.
   *
   * @throws NullPointerException if a required value is null
   * @throws IllegalArgumentException if a duration is not positive, or only one of {@code user} and
   *     {@code password} is given
   */
  public NatsSinkSettings {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(subject, "subject");
    Objects.requireNonNull(stream, "stream");
    Objects.requireNonNull(duplicateWindow, "duplicateWindow");
    Objects.requireNonNull(ackTimeout, "ackTimeout");
    Objects.requireNonNull(format, "format");
    if (duplicateWindow.isNegative() || duplicateWindow.isZero())
      throw new IllegalArgumentException("duplicateWindow must be positive");
    if (ackTimeout.isNegative() || ackTimeout.isZero())
      throw new IllegalArgumentException("ackTimeout must be positive");
    if ((user == null) != (password == null))
      throw new IllegalArgumentException("user and password go together: give both or neither");
  }

  /**
   * The defaults for a server.
   *
   * @param url the server, {@code nats://host:port}
   * @return settings with every other value at its default
   */
  public static NatsSinkSettings of(String url) {
    return new NatsSinkSettings(
        url,
        Destination.parse(DEFAULT_SUBJECT),
        DEFAULT_STREAM,
        true,
        DEFAULT_DUPLICATE_WINDOW,
        DEFAULT_ACK_TIMEOUT,
        null,
        null,
        null,
        null,
        EventFormat.ENVELOPE);
  }

  /**
   * These settings with another stream.
   *
   * @param stream the stream's name
   * @param create whether to create it when missing
   * @return a copy
   */
  public NatsSinkSettings withStream(String stream, boolean create) {
    return new NatsSinkSettings(
        url,
        subject,
        stream,
        create,
        duplicateWindow,
        ackTimeout,
        token,
        user,
        password,
        credentials,
        format);
  }

  /**
   * These settings with another subject template.
   *
   * @param template e.g. {@code orders.{{source}}.{{partition}}}
   * @return a copy
   * @throws IllegalArgumentException for a placeholder other than the two allowed
   */
  public NatsSinkSettings withSubject(String template) {
    return new NatsSinkSettings(
        url,
        Destination.parse(template),
        stream,
        createStream,
        duplicateWindow,
        ackTimeout,
        token,
        user,
        password,
        credentials,
        format);
  }

  /**
   * These settings with another format.
   *
   * @param format the envelope or CloudEvents
   * @return a copy
   */
  public NatsSinkSettings withFormat(EventFormat format) {
    return new NatsSinkSettings(
        url,
        subject,
        stream,
        createStream,
        duplicateWindow,
        ackTimeout,
        token,
        user,
        password,
        credentials,
        format);
  }

  /**
   * These settings with other durations.
   *
   * @param duplicateWindow the created stream's duplicate window
   * @param ackTimeout the wait for a batch's acks
   * @return a copy
   */
  public NatsSinkSettings withTimes(Duration duplicateWindow, Duration ackTimeout) {
    return new NatsSinkSettings(
        url,
        subject,
        stream,
        createStream,
        duplicateWindow,
        ackTimeout,
        token,
        user,
        password,
        credentials,
        format);
  }

  /**
   * These settings with other credentials (secrets, never shown).
   *
   * @param token an authentication token, or null
   * @param user a user name, or null
   * @param password the user's password, or null
   * @param credentials a credentials file, or null
   * @return a copy
   * @throws IllegalArgumentException if only one of {@code user} and {@code password} is given
   */
  public NatsSinkSettings withAuth(
      @Nullable String token,
      @Nullable String user,
      @Nullable String password,
      @Nullable Path credentials) {
    return new NatsSinkSettings(
        url,
        subject,
        stream,
        createStream,
        duplicateWindow,
        ackTimeout,
        token,
        user,
        password,
        credentials,
        format);
  }

  /** The settings with the token and the password hidden. */
  @Override
  public String toString() {
    return "NatsSinkSettings[url="
        + NatsServerUrl.shown(url)
        + ", subject="
        + subject
        + ", stream="
        + stream
        + ", createStream="
        + createStream
        + ", duplicateWindow="
        + duplicateWindow
        + ", ackTimeout="
        + ackTimeout
        + ", token="
        + (token == null ? "none" : "***")
        + ", user="
        + (user == null ? "none" : user)
        + ", password="
        + (password == null ? "none" : "***")
        + ", credentials="
        + credentials
        + ", format="
        + format.wire()
        + "]";
  }
}
