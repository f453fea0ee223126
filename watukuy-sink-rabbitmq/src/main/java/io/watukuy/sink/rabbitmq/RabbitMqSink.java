package io.watukuy.sink.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.PossibleAuthenticationFailureException;
import com.rabbitmq.client.ShutdownSignalException;
import io.watukuy.ChangeEvent;
import io.watukuy.ConfigException;
import io.watukuy.HandlerUnavailableException;
import io.watukuy.PollerKey;
import io.watukuy.sink.Sink;
import io.watukuy.sink.SinkConfig;
import java.io.IOException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Publishes a poller's events to a RabbitMQ exchange (docs/sinks.md, "RabbitMQ"), keeping G1, G3,
 * G7 and G9:
 *
 * <ul>
 *   <li><b>Delivered means confirmed.</b> Each event is a persistent message (delivery mode 2)
 *       published with {@code mandatory}; a batch returns only once the broker sent a publisher
 *       confirm for every message, waiting at most {@code confirmTimeout}. A message that reaches
 *       no queue is returned by the broker, and the batch is not delivered either.
 *   <li><b>Deduplicate by {@code message_id}</b>: the delivery key {@code <event id>-<sequence>},
 *       the same when a batch is published again after a crash or a lost confirm. Header {@value
 *       Messages#EVENT_ID_HEADER} carries the event id, which repeats on purpose (A → B → A).
 *   <li><b>Order per ordering key (G3).</b> A batch is published on one channel of its own, in
 *       order, and confirmed before {@link #handle} returns; channels are pooled but never shared
 *       by two batches at once, and the engine never runs two batches of one ordering key at once.
 *   <li><b>Outage, not the events' fault.</b> Connection refused or lost, a confirm timeout, a
 *       nack, an unroutable message, a missing exchange: {@link HandlerUnavailableException}, so
 *       the batch stays pending with backoff and nothing is parked. The next batch reconnects (the
 *       client's automatic recovery is off, so that a batch never publishes on a connection
 *       half-way through recovery). A confirm timeout closes the connection, whose late answers
 *       could confuse a channel that reuses a number. A broker under a memory or disk alarm blocks
 *       publishing connections and says so ({@code connection.blocked}): the wait for confirms ends
 *       then, with the broker's reason, rather than at {@code confirmTimeout}, and while the block
 *       lasts a batch publishes nothing and {@link #health()} is down.
 *   <li><b>One message refused.</b> The broker closes the channel with {@code 406
 *       PRECONDITION_FAILED} for a message over its {@code max_message_size}; the client refuses
 *       headers larger than a frame. Then the batch's unconfirmed messages are published again one
 *       at a time on a fresh channel, and the refused one is reported with {@link
 *       BatchResult#failed} (retried, then parked, G7); the later events of its ordering key in the
 *       batch are not published.
 * </ul>
 *
 * <p>Thread-safe: {@link #handle} runs on several handler threads at once, each with a channel of
 * its own; one connection serves them all. {@link #name()} and every message redact the URI's
 * password.
 *
 * @since 0.2
 */
public final class RabbitMqSink implements Sink {
  private final RabbitMqSettings settings;
  private final ConnectionFactory factory;
  private final String name;
  private final String uriShown;
  private final long confirmMillis;

  /** How often a wait for confirms looks whether the broker blocked the connection. */
  private static final long BLOCK_CHECK_MILLIS = 100;

  private final ConcurrentLinkedDeque<ConfirmedChannel> idle = new ConcurrentLinkedDeque<>();
  private final Object connectionLock = new Object();
  private @Nullable Connection connection; // guarded by connectionLock
  private volatile @Nullable String lastProblem;
  // Set while the broker blocks the current connection's publishes (a resource alarm)
  private volatile @Nullable String blockedBy;
  private volatile boolean closed;

  /**
   * A sink, not connected yet ({@link #open()} connects).
   *
   * @param settings the settings
   * @throws IllegalArgumentException when the client cannot use the URI (e.g. an {@code amqps} URI
   *     with no TLS available); the message does not repeat the URI
   */
  public RabbitMqSink(RabbitMqSettings settings) {
    this.settings = settings;
    this.uriShown = settings.redactedUri();
    this.name =
        "rabbitmq "
            + uriShown
            + " exchange "
            + (settings.exchange().isEmpty() ? "\"\" (the default)" : settings.exchange());
    this.confirmMillis = Math.max(1, settings.confirmTimeout().toMillis());
    this.factory = new ConnectionFactory();
    try {
      factory.setUri(settings.uri());
    } catch (Exception e) {
      // Its message may quote the URI, password included.
      throw new IllegalArgumentException(
          "sink "
              + name
              + ": the client cannot use this URI ("
              + e.getClass().getSimpleName()
              + ")");
    }
    factory.setAutomaticRecoveryEnabled(false);
    factory.setTopologyRecoveryEnabled(false);
    int connectMillis = (int) Math.min(10_000, confirmMillis);
    factory.setConnectionTimeout(connectMillis);
    factory.setHandshakeTimeout(connectMillis);
    // A broker that stops answering must not hold a channel's open or close for the client's
    // default of ten minutes.
    factory.setChannelRpcTimeout((int) Math.min(Integer.MAX_VALUE, Math.max(1_000, confirmMillis)));
  }

  /**
   * A sink from a {@code sink: {type: rabbitmq}} section.
   *
   * @param config the section
   * @return the sink, not connected yet
   * @throws ConfigException for a missing, unknown or invalid key
   */
  public static RabbitMqSink create(SinkConfig config) {
    RabbitMqSettings settings = RabbitMqSettings.from(config);
    try {
      return new RabbitMqSink(settings);
    } catch (IllegalArgumentException e) {
      throw config.error("uri", e.getMessage());
    }
  }

  /**
   * The settings.
   *
   * @return the settings; their {@code toString} redacts the password
   */
  public RabbitMqSettings settings() {
    return settings;
  }

  /**
   * {@code rabbitmq amqp://user:[redacted]@host:port/vhost exchange NAME}.
   *
   * @return the name, password redacted
   */
  @Override
  public String name() {
    return name;
  }

  /**
   * Connects, and checks the exchange with a passive declare (or declares it, durable and of type
   * {@code topic}, with {@code declare: true}). The default exchange {@code ""} always exists.
   *
   * @throws ConfigException for credentials the broker refuses, an unknown host, or a missing
   *     exchange without {@code declare: true}; the message names the sink and what to fix
   * @throws IOException when the broker cannot be reached now (retried at the next cycle)
   */
  @Override
  public void open() throws IOException {
    Connection c = connection();
    if (settings.exchange().isEmpty()) return;
    Channel check = c.createChannel();
    if (check == null) throw new IOException("the broker has no channel left on the connection");
    try {
      if (settings.declare()) check.exchangeDeclare(settings.exchange(), "topic", true);
      else check.exchangeDeclarePassive(settings.exchange());
    } catch (IOException e) {
      ShutdownSignalException sse = shutdown(e);
      if (sse != null && !sse.isHardError() && replyCode(sse) == AMQP.NOT_FOUND)
        throw new ConfigException(
            "sink "
                + name
                + ": exchange '"
                + settings.exchange()
                + "' does not exist on virtual host '"
                + factory.getVirtualHost()
                + "'; declare it, or set declare: true to have it declared (durable, topic)");
      if (sse != null && !sse.isHardError())
        throw new ConfigException(
            "sink "
                + name
                + ": the broker refused exchange '"
                + settings.exchange()
                + "': "
                + reason(sse));
      throw new IOException("checking exchange '" + settings.exchange() + "': " + describe(e));
    } finally {
      if (check.isOpen()) abort(check);
    }
  }

  /**
   * Publishes the batch on a channel of its own and waits for the broker's confirms.
   *
   * @param events one key's events in sequence order
   * @return ok, or the first event of an ordering key the broker refused for good (its later events
   *     in the batch were not published)
   * @throws HandlerUnavailableException when the broker cannot be reached, does not confirm within
   *     {@code confirmTimeout}, blocks publishing (a resource alarm), nacks, or routes a message to
   *     no queue: the batch stays pending
   * @throws IllegalArgumentException when the routing key rendered for this key is longer than the
   *     255 bytes AMQP allows
   */
  @Override
  public BatchResult handle(List<ChangeEvent<Object>> events) throws Exception {
    if (events.isEmpty()) return BatchResult.ok();
    String reason = blockedBy;
    if (reason != null) throw blocked(reason);
    String routingKey = routingKey(events.get(0).key());
    ConfirmedChannel channel = borrow();
    try {
      return publishBatch(channel, routingKey, events);
    } finally {
      giveBack(channel);
    }
  }

  /**
   * Up while the connection is open and the broker does not block it.
   *
   * @return up, or down with the broker's block reason or the last problem (redacted)
   */
  @Override
  public Health health() {
    String reason = blockedBy;
    synchronized (connectionLock) {
      if (connection != null && connection.isOpen())
        return reason == null
            ? Health.up()
            : Health.down("the broker blocks publishing (" + reason + ")");
    }
    String problem = lastProblem;
    return Health.down(problem == null ? "not connected" : problem);
  }

  /** Closes the channels and the connection; a failure to close is ignored. */
  @Override
  public void close() {
    closed = true;
    for (ConfirmedChannel c; (c = idle.poll()) != null; ) c.closeQuietly();
    synchronized (connectionLock) {
      if (connection != null) connection.abort(5_000);
      connection = null;
    }
  }

  @Override
  public String toString() {
    return name;
  }

  private BatchResult publishBatch(
      ConfirmedChannel channel, String routingKey, List<ChangeEvent<Object>> events)
      throws IOException, InterruptedException {
    channel.startBatch();
    long[] tags = new long[events.size()];
    // -1: not published on this channel; publish tags start at 1.
    Arrays.fill(tags, -1);
    try {
      for (int i = 0; i < events.size(); i++) {
        ChangeEvent<Object> e = events.get(i);
        tags[i] = channel.nextTag();
        channel.publish(
            settings.exchange(),
            routingKey,
            Messages.properties(e, settings.format()),
            Messages.body(e, settings.format()));
      }
      awaitConfirms(channel, events.size());
      failIfReturned(channel, routingKey);
      return BatchResult.ok();
    } catch (IllegalArgumentException | ShutdownSignalException | IOException e) {
      if (!refusedOneMessage(e)) throw unavailable("publishing", e);
      channel.closeQuietly();
      return oneAtATime(routingKey, events, tags, channel);
    }
  }

  /**
   * After a refusal that closed the batch's channel: the unconfirmed events again, one at a time on
   * fresh channels, so the refused one is known. An ordering key stops at its refused event.
   */
  private BatchResult oneAtATime(
      String routingKey, List<ChangeEvent<Object>> events, long[] tags, ConfirmedChannel first)
      throws IOException, InterruptedException {
    BatchResult result = BatchResult.ok();
    Set<String> stopped = new HashSet<>();
    ConfirmedChannel channel = null;
    try {
      for (int i = 0; i < events.size(); i++) {
        ChangeEvent<Object> e = events.get(i);
        if (stopped.contains(e.orderingKey()) || (tags[i] > 0 && first.confirmed(tags[i])))
          continue;
        if (channel == null || !channel.isOpen()) channel = freshChannel();
        channel.startBatch();
        try {
          channel.publish(
              settings.exchange(),
              routingKey,
              Messages.properties(e, settings.format()),
              Messages.body(e, settings.format()));
          awaitConfirms(channel, 1);
          failIfReturned(channel, routingKey);
        } catch (IllegalArgumentException | ShutdownSignalException | IOException x) {
          if (!refusedOneMessage(x)) throw unavailable("publishing", x);
          channel.closeQuietly();
          stopped.add(e.orderingKey());
          result =
              result.allHandled()
                  ? BatchResult.failed(e, refusal(e, x))
                  : result.andFailed(e, refusal(e, x));
        }
      }
      return result;
    } finally {
      if (channel != null) giveBack(channel);
    }
  }

  private void awaitConfirms(ConfirmedChannel channel, int count) throws InterruptedException {
    boolean allAcked;
    long deadline = System.nanoTime() + confirmMillis * 1_000_000L;
    while (true) {
      long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000L);
      try {
        // In slices, so that a block by the broker ends the wait at once.
        allAcked = channel.channel().waitForConfirms(Math.min(left, BLOCK_CHECK_MILLIS));
        break;
      } catch (TimeoutException e) {
        String reason = blockedBy;
        if (reason == null && System.nanoTime() - deadline < 0) continue;
        // The broker may still answer on this connection later (a late confirm, a channel's
        // close-ok) and confuse a channel that reuses the number: drop the whole connection, and
        // the next batch opens a new one.
        abort(channel.channel().getConnection());
        if (reason != null) throw blocked(reason);
        throw unavailable(
            "no publisher confirm for "
                + count
                + " message(s) within "
                + io.watukuy.sink.SinkConfig.formatDuration(settings.confirmTimeout()),
            null);
      }
    }
    if (!allAcked) {
      channel.closeQuietly();
      throw unavailable("the broker nacked a message (it could not take it now)", null);
    }
  }

  private void failIfReturned(ConfirmedChannel channel, String routingKey) {
    if (!channel.anyReturned()) return;
    throw unavailable(
        "no queue is bound to exchange '"
            + settings.exchange()
            + "' for routing key '"
            + routingKey
            + "', so the broker would drop the events; bind a queue, and they are published again",
        null);
  }

  /**
   * A refusal of one message, not of the destination: the broker's channel-level 406 (over {@code
   * max_message_size}), or the client's own refusal of headers larger than a frame.
   */
  private static boolean refusedOneMessage(Exception e) {
    if (e instanceof IllegalArgumentException) return true;
    ShutdownSignalException sse = shutdown(e);
    return sse != null && !sse.isHardError() && replyCode(sse) == AMQP.PRECONDITION_FAILED;
  }

  private Exception refusal(ChangeEvent<?> event, Exception e) {
    String why = e instanceof IllegalArgumentException ? e.getMessage() : reason(shutdown(e));
    return new IOException(
        "sink "
            + name
            + ": the broker refused message "
            + event.deliveryKey()
            + " ("
            + Messages.body(event, settings.format()).length
            + " bytes of body): "
            + why);
  }

  private String routingKey(PollerKey key) {
    String rendered = settings.routingKey().render(key);
    int bytes = rendered.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > 255)
      throw new IllegalArgumentException(
          "sink "
              + name
              + ": routing key '"
              + rendered
              + "' for "
              + key
              + " is "
              + bytes
              + " bytes, more than the 255 AMQP allows; shorten routingKey");
    return rendered;
  }

  private ConfirmedChannel borrow() {
    if (closed) throw unavailable("the sink is closed", null);
    for (ConfirmedChannel c; (c = idle.poll()) != null; ) {
      if (c.isOpen()) return c;
    }
    return freshChannel();
  }

  private void giveBack(ConfirmedChannel channel) {
    if (channel.isOpen() && !closed) idle.push(channel);
    else channel.closeQuietly();
  }

  private ConfirmedChannel freshChannel() {
    try {
      return ConfirmedChannel.open(connection());
    } catch (IOException | ShutdownSignalException e) {
      throw unavailable("opening a channel", e);
    } catch (ConfigException e) {
      throw new HandlerUnavailableException(e.getMessage(), null);
    }
  }

  /** The open connection, connecting when there is none or it was lost. */
  private Connection connection() throws IOException {
    synchronized (connectionLock) {
      if (connection != null && connection.isOpen()) return connection;
      if (connection != null) connection.abort(1_000);
      connection = null;
      for (ConfirmedChannel c; (c = idle.poll()) != null; ) c.closeQuietly();
      try {
        Connection made = factory.newConnection("watukuy " + name);
        blockedBy = null;
        // The broker blocks publishing connections while a memory or disk alarm is in effect, and
        // tells the client: a batch then waits no longer for confirms that cannot come.
        made.addBlockedListener(
            reason -> {
              if (isCurrent(made)) blockedBy = reason;
            },
            () -> {
              if (isCurrent(made)) blockedBy = null;
            });
        connection = made;
        lastProblem = null;
        return connection;
      } catch (PossibleAuthenticationFailureException e) {
        lastProblem = "the broker refused the credentials";
        throw new ConfigException(
            "sink "
                + name
                + ": the broker refused the credentials (user '"
                + factory.getUsername()
                + "', virtual host '"
                + factory.getVirtualHost()
                + "'): check the user, password and vhost in uri");
      } catch (UnknownHostException e) {
        lastProblem = "unknown host " + factory.getHost();
        throw new ConfigException(
            "sink " + name + ": unknown host '" + factory.getHost() + "' in uri");
      } catch (IOException | TimeoutException e) {
        lastProblem = "cannot connect: " + describe(e);
        throw new IOException("cannot connect to " + uriShown + ": " + describe(e));
      }
    }
  }

  private boolean isCurrent(Connection c) {
    synchronized (connectionLock) {
      return connection == c;
    }
  }

  /** The refusal of a batch while the broker blocks publishing. */
  private HandlerUnavailableException blocked(String reason) {
    return unavailable(
        "the broker blocks publishing ("
            + reason
            + "), a resource alarm; the batch stays pending until the broker lifts it",
        null);
  }

  private HandlerUnavailableException unavailable(String what, @Nullable Throwable cause) {
    String message = "sink " + name + ": " + what + (cause == null ? "" : ": " + describe(cause));
    lastProblem = message;
    // No cause attached: the client's exceptions are described above, never stored raw.
    return new HandlerUnavailableException(message, null);
  }

  private static @Nullable ShutdownSignalException shutdown(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause())
      if (t instanceof ShutdownSignalException sse) return sse;
    return null;
  }

  private static int replyCode(ShutdownSignalException sse) {
    return sse.getReason() instanceof AMQP.Channel.Close c
        ? c.getReplyCode()
        : sse.getReason() instanceof AMQP.Connection.Close cc ? cc.getReplyCode() : 0;
  }

  private static String reason(@Nullable ShutdownSignalException sse) {
    if (sse == null) return "channel closed";
    if (sse.getReason() instanceof AMQP.Channel.Close c) return c.getReplyText();
    if (sse.getReason() instanceof AMQP.Connection.Close c) return c.getReplyText();
    return sse.isInitiatedByApplication() ? "closed by the client" : "connection lost";
  }

  private static String describe(Throwable e) {
    ShutdownSignalException sse = shutdown(e);
    if (sse != null) return reason(sse);
    String m = e.getMessage();
    return m == null ? e.getClass().getSimpleName() : m;
  }

  private void abort(Connection lost) {
    synchronized (connectionLock) {
      if (connection == lost) connection = null;
    }
    lost.abort(1_000);
  }

  private static void abort(Channel channel) {
    try {
      channel.abort();
    } catch (IOException | RuntimeException ignored) {
      // best effort: the channel is dropped either way
    }
  }
}
