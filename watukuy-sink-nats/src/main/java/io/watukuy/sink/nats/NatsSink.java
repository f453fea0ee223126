package io.watukuy.sink.nats;

import io.nats.client.AuthenticationException;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamOptions;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.NatsMessage;
import io.watukuy.ChangeEvent;
import io.watukuy.ConfigException;
import io.watukuy.HandlerUnavailableException;
import io.watukuy.PollerKey;
import io.watukuy.sink.Sink;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The NATS JetStream sink ({@code sink: {type: nats}}; docs/sinks.md, "NATS JetStream"): each event
 * is a JetStream publish to the subject of its key, with {@code Nats-Msg-Id} = the delivery key
 * {@code <event id>-<sequence>}, so the stream's duplicate window drops a redelivery of the same
 * outbox row (G9), and the header {@code watukuy-event-id} = the event id.
 *
 * <p><b>Acknowledged.</b> {@link #handle} publishes asynchronously and returns only once the stream
 * acknowledged every event it reports handled, waiting at most {@code ackTimeout} in all; an ack
 * marked duplicate counts as delivered (the stream already holds that delivery key).
 *
 * <p><b>Order (G3).</b> One connection publishes, so the stream stores a key's messages in publish
 * order. Within a batch, the events of one ordering key are published one after the other's ack
 * (the events of different ordering keys at once): when one is refused, the ordering key's later
 * events of the batch are not published, and come again after it.
 *
 * <p><b>Failures.</b> A server that cannot be reached, a connection that is reconnecting, or an ack
 * that does not come within {@code ackTimeout} throws {@link HandlerUnavailableException}: the
 * batch stays pending, with backoff, never parked (G1). A message the stream refuses (larger than
 * the server's {@code max_payload} or the stream's maximum message size, or any other JetStream API
 * error for that message) is {@link BatchResult#failed} for that event: retried, then parked (G7).
 *
 * <p>Secrets: the URL's credentials, the token and the password never reach {@link #name()}, a
 * message or a log. Thread-safe: batches of different keys may be handled at once.
 *
 * @since 0.2
 */
public final class NatsSink implements Sink {
  private final NatsSinkSettings settings;
  private final NatsServerUrl url;
  private final String name;
  private final Map<PollerKey, String> subjects = new ConcurrentHashMap<>();
  private volatile @Nullable Connection connection;
  private volatile @Nullable JetStream jetStream;

  /**
   * A sink, not yet connected.
   *
   * @param settings where and how to publish
   * @throws IllegalArgumentException when the URL, the subject template or the stream name is
   *     invalid (the message holds no credential)
   */
  public NatsSink(NatsSinkSettings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.url = NatsServerUrl.parse(settings.url());
    String problem = Subjects.checkTemplate(settings.subject());
    if (problem != null) throw new IllegalArgumentException("subject: " + problem);
    problem = Streams.checkName(settings.stream());
    if (problem != null) throw new IllegalArgumentException("stream: " + problem);
    this.name = "nats " + url + " stream " + settings.stream() + " subject " + settings.subject();
  }

  /** {@code nats <url, redacted> stream <stream> subject <template>}. */
  @Override
  public String name() {
    return name;
  }

  /**
   * Connects, then finds the stream and checks that it captures the template's subjects, or creates
   * it (file storage, {@code duplicateWindow}) when it is missing and {@code createStream} is on.
   *
   * @throws ConfigException when the server refuses the credentials (token, user and password,
   *     credentials file), when the stream is missing and {@code createStream} is false, when it
   *     does not capture the subjects, or when the server refuses to create it
   * @throws IOException when the server cannot be reached (the message redacted): retried
   * @throws InterruptedException when interrupted while connecting
   */
  @Override
  public void open() throws IOException, InterruptedException {
    Connection c = connect();
    try {
      JetStreamManagement jsm = c.jetStreamManagement();
      new Streams(name, settings, Subjects.streamFilter(settings.subject()), url).ensure(jsm);
      jetStream =
          c.jetStream(JetStreamOptions.builder().requestTimeout(settings.ackTimeout()).build());
      connection = c;
    } catch (RuntimeException | IOException e) {
      c.close();
      if (e instanceof IOException io) throw redacted(io);
      throw e;
    }
  }

  private Connection connect() throws IOException, InterruptedException {
    Options.Builder options =
        Options.builder()
            .server(url.secretUrl())
            .connectionName("watukuy")
            .connectionTimeout(settings.ackTimeout())
            // Reconnects forever in the background: while it does, batches are unavailable.
            .maxReconnects(-1)
            .errorListener(new QuietErrorListener(name, url))
            .noRandomize();
    if (settings.token() != null) options.token(settings.token().toCharArray());
    if (settings.user() != null && settings.password() != null)
      options.userInfo(settings.user().toCharArray(), settings.password().toCharArray());
    if (settings.credentials() != null)
      options.authHandler(Nats.credentials(settings.credentials().toString()));
    try {
      return Nats.connect(options.build());
    } catch (AuthenticationException e) {
      // Refused credentials do not heal by retrying: a config error, like a missing stream.
      throw new ConfigException(
          "sink "
              + name
              + ": the server refused the credentials ("
              + redacted(e).getMessage()
              + "); check token, user and password, or credentials");
    } catch (IOException e) {
      IOException clean = redacted(e);
      // Waiting never makes the server take a token it refused: a config error, not an outage.
      if (authenticationRefused(e))
        throw new ConfigException(
            "sink "
                + name
                + ": the server refused the credentials ("
                + clean.getMessage()
                + "); check token, user and password, or credentials");
      throw clean;
    }
  }

  /** Whether the server refused the connection's credentials (an authorization violation). */
  static boolean authenticationRefused(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof io.nats.client.AuthenticationException) return true;
      String m = String.valueOf(t.getMessage()).toLowerCase(java.util.Locale.ROOT);
      if (m.contains("authorization violation") || m.contains("authentication")) return true;
      if (t.getCause() == t) break;
    }
    return false;
  }

  private IOException redacted(IOException e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    String clean = url.redact(message);
    if (settings.token() != null) clean = clean.replace(settings.token(), "***");
    if (settings.password() != null) clean = clean.replace(settings.password(), "***");
    return new IOException(clean);
  }

  /** Down while the connection is not open or is reconnecting. */
  @Override
  public Health health() {
    Connection c = connection;
    if (c == null) return Health.down("not connected");
    Connection.Status status = c.getStatus();
    return status == Connection.Status.CONNECTED
        ? Health.up()
        : Health.down("connection " + status.name().toLowerCase(java.util.Locale.ROOT));
  }

  /** Flushes and closes the connection. */
  @Override
  public void close() throws InterruptedException {
    Connection c = connection;
    connection = null;
    jetStream = null;
    if (c != null) c.close();
  }

  /**
   * Publishes the batch and waits for the stream's acks (see the class comment).
   *
   * @param events one key's events in sequence order
   * @return the events the stream refused, at most the first of each ordering key
   * @throws HandlerUnavailableException when not connected, or an ack did not come in time
   * @throws IllegalArgumentException when the key's rendered subject is invalid (every event of the
   *     batch fails, and is parked after its retries)
   * @throws InterruptedException when interrupted while waiting for acks
   */
  @Override
  public BatchResult handle(List<ChangeEvent<Object>> events) throws InterruptedException {
    Connection c = connection;
    JetStream js = jetStream;
    if (c == null || js == null)
      throw new HandlerUnavailableException("sink " + name + " is not open", null);
    if (c.getStatus() != Connection.Status.CONNECTED)
      throw new HandlerUnavailableException(
          "sink " + name + ": not connected to the server (" + c.getStatus() + ")", null);
    if (events.isEmpty()) return BatchResult.ok();
    String subject = subjects.computeIfAbsent(events.get(0).key(), this::subjectFor);

    Map<String, ArrayDeque<ChangeEvent<Object>>> byOrderingKey = new LinkedHashMap<>();
    for (ChangeEvent<Object> e : events)
      byOrderingKey.computeIfAbsent(e.orderingKey(), k -> new ArrayDeque<>()).add(e);
    long deadline = System.nanoTime() + settings.ackTimeout().toNanos();
    long maxPayload = c.getMaxPayload();
    BatchResult result = BatchResult.ok();
    // A wave publishes the next event of every ordering key still going, then waits for them all:
    // a key's next event is published only after its previous one was stored.
    while (!byOrderingKey.isEmpty()) {
      List<Published> wave = new ArrayList<>(byOrderingKey.size());
      for (var it = byOrderingKey.entrySet().iterator(); it.hasNext(); ) {
        var entry = it.next();
        ChangeEvent<Object> event = entry.getValue().poll();
        boolean last = entry.getValue().isEmpty();
        if (last) it.remove();
        Message message = message(subject, event);
        long size = message.getData().length + message.getHeaders().serializedLength();
        if (size > maxPayload) {
          result =
              result.andFailed(
                  event,
                  new MessageTooLargeException(
                      "sink "
                          + name
                          + ": the message of "
                          + event.deliveryKey()
                          + " is "
                          + size
                          + " bytes, over the server's max_payload of "
                          + maxPayload));
          if (!last) it.remove();
          continue;
        }
        wave.add(new Published(event, js.publishAsync(message, publishOptions(event))));
      }
      for (Published p : wave) {
        Throwable refused = await(p, deadline, wave);
        if (refused == null) continue;
        result = result.andFailed(p.event(), refused);
        byOrderingKey.remove(p.event().orderingKey());
      }
    }
    return result;
  }

  /**
   * The stream's refusal of this event, null when stored; throws when the stream is unavailable.
   */
  private @Nullable Throwable await(Published p, long deadline, List<Published> wave)
      throws InterruptedException {
    try {
      PublishAck ack = p.ack().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      // A duplicate ack: the stream already holds this delivery key, which is what was wanted.
      Objects.requireNonNull(ack, "ack");
      return null;
    } catch (TimeoutException e) {
      for (Published other : wave) other.ack().cancel(false);
      throw new HandlerUnavailableException(
          "sink "
              + name
              + ": no ack from stream "
              + settings.stream()
              + " within "
              + settings.ackTimeout()
              + " for "
              + p.event().deliveryKey(),
          null);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      JetStreamApiException api = apiError(cause);
      if (api != null)
        return new StreamRefusedException(
            "sink "
                + name
                + ": stream "
                + settings.stream()
                + " refused "
                + p.event().deliveryKey()
                + ": "
                + api.getMessage()
                + " (JetStream error "
                + api.getApiErrorCode()
                + ")");
      throw new HandlerUnavailableException(
          "sink "
              + name
              + ": publish of "
              + p.event().deliveryKey()
              + " failed: "
              + url.redact(String.valueOf(cause.getMessage())),
          null);
    } catch (java.util.concurrent.CancellationException e) {
      throw new HandlerUnavailableException(
          "sink " + name + ": publish of " + p.event().deliveryKey() + " was cancelled", null);
    }
  }

  /** The stream's refusal in a cause chain: the client wraps it in an exception of its own. */
  private static @Nullable JetStreamApiException apiError(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause())
      if (t instanceof JetStreamApiException api) return api;
    return null;
  }

  private String subjectFor(PollerKey key) {
    try {
      return Subjects.render(settings.subject(), key);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("sink " + name + ": " + e.getMessage(), e);
    }
  }

  private Message message(String subject, ChangeEvent<Object> event) {
    return NatsMessage.builder()
        .subject(subject)
        .headers(NatsHeaders.of(event, settings.format()))
        .data(settings.format().body(event))
        .build();
  }

  private PublishOptions publishOptions(ChangeEvent<Object> event) {
    return PublishOptions.builder()
        .messageId(event.deliveryKey())
        // Refused, rather than stored elsewhere, when another stream captures the subject.
        .expectedStream(settings.stream())
        .build();
  }

  private record Published(ChangeEvent<Object> event, CompletableFuture<PublishAck> ack) {}

  /** An event whose message is larger than the server takes: parked after its retries. */
  static final class MessageTooLargeException extends Exception {
    private static final long serialVersionUID = 1L;

    MessageTooLargeException(String message) {
      super(message);
    }
  }

  /** The stream refused an event's message (too large for it, or another API error). */
  static final class StreamRefusedException extends Exception {
    private static final long serialVersionUID = 1L;

    StreamRefusedException(String message) {
      super(message);
    }
  }
}
