package io.watukuy.sink;

import io.watukuy.BatchHandler;
import io.watukuy.ChangeEvent;
import io.watukuy.HandlerUnavailableException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A destination for a poller's events that is a system of its own — a Kafka topic, a queue, a
 * webhook, a table (docs/sinks.md): a {@link BatchHandler} with a lifecycle. Attach it with {@code
 * Watukuy.builder().sink(poller, sink)}; one sink may serve several pollers and is opened and
 * closed once.
 *
 * <p><b>What a sink promises.</b> It keeps the {@link BatchHandler} contract: a batch holds up to
 * {@code batchSize} events of one key (poller and partition) in sequence order, and {@link #handle}
 * returns only once the destination has acknowledged every event it reports handled (a broker's
 * ack, a 2xx, a committed transaction); the engine then acks the batch in the store. A crash in
 * between repeats the batch (G9), so a sink writes the delivery key ({@link
 * ChangeEvent#deliveryKey()}) where its consumers deduplicate.
 *
 * <p><b>Failures.</b> The destination being down (connection refused, a broker timeout, a 5xx) is
 * not the events' fault: throw (or report) {@link HandlerUnavailableException}, and the batch stays
 * pending, retried with backoff, never parked (G1). A permanent failure of one event (a record too
 * large, a payload the receiver refuses) is reported with {@link BatchResult#failed}: that event is
 * retried and then parked under the poller's delivery policy, and holds its ordering key per the
 * poison policy (G7).
 *
 * <p><b>Order.</b> Events of one ordering key must reach the destination in the order of the batch
 * and of successive batches (G3): a sink writes them in order on one connection, channel or
 * partition. A sink whose destination is one stream for all ordering keys returns true from {@link
 * #inSequenceOrder()}.
 *
 * <p>Threads: {@link #handle} may be called from several handler threads at once, for different
 * keys or for batches of one key with no ordering key in common; {@link #open()} and {@link
 * #close()} are called once each, never during a {@code handle}.
 *
 * @since 0.2
 */
public interface Sink extends BatchHandler<Object>, AutoCloseable {
  /**
   * How messages name this sink, e.g. {@code kafka topic orders.changes} or {@code webhook
   * https://hooks.example.com/orders}: the type and the destination, with credentials redacted
   * (never a password, token or secret query parameter).
   *
   * @return a short name, redacted
   */
  String name();

  /**
   * Connects and checks that the destination can take events (the topic exists, the credentials are
   * accepted, the table has the mapped columns). The engine calls it once, before the first batch;
   * until it succeeds, batches stay pending and it is called again at the next cycle.
   *
   * @throws io.watukuy.ConfigException when the sink can never work as configured (bad credentials,
   *     a missing topic with auto-create off, a missing column): the message names the sink and the
   *     setting to fix
   * @throws Exception when the destination cannot be reached now: retried at the next cycle
   */
  default void open() throws Exception {}

  /**
   * Whether the destination can take events now, for health checks and {@code inspect}. Must not
   * block for longer than a connection timeout, and must not throw.
   *
   * @return {@link Health#up()} by default
   */
  default Health health() {
    return Health.up();
  }

  /**
   * Flushes and releases connections. Called once, when the engine closes, after delivery stopped.
   *
   * @throws Exception when releasing fails; the engine logs it and goes on
   */
  @Override
  default void close() throws Exception {}

  /**
   * Writes a batch and returns once the destination acknowledged it; see {@link
   * BatchHandler#handle} and the class comment for failures.
   *
   * @param events one to {@code batchSize} events of one key, in sequence order; unmodifiable
   * @return the failed events, {@link BatchResult#ok()} when none failed
   * @throws HandlerUnavailableException when the destination is down: the batch stays pending
   * @throws Exception to fail every event of the batch (an attempt each)
   */
  @Override
  BatchResult handle(List<ChangeEvent<Object>> events) throws Exception;

  /**
   * The key and lease of the batch this thread is handling: for a sink whose write and the batch's
   * ack commit in one store transaction, fenced by that lease (the table sink's {@code
   * sameDatabase: true}, docs/sinks.md). The engine acks the batch after {@link #handle} returns as
   * for any sink; an ack of rows already acked is a no-op (StateStore contract).
   *
   * @return the hand-off, or empty outside a handler call made by the engine
   * @since 0.2
   */
  static Optional<HandOff> handOff() {
    return Optional.ofNullable(io.watukuy.internal.HandOffs.current());
  }

  /**
   * Headers the engine's listeners gave the batch this thread is handling ({@link
   * io.watukuy.WatukuyListener#onDeliveryStart}), for the sink to write on every message of the
   * batch: a Kafka record header, an AMQP header, a NATS header, an HTTP request header. With
   * watukuy-opentelemetry these are the W3C trace context, {@code traceparent} and, when the trace
   * has one, {@code tracestate} (docs/operations.md, "Traces"). Names are lower-case tokens and
   * values printable US-ASCII: the engine drops any other header a listener gives.
   *
   * @return the headers in the order given; empty outside a handler call made by the engine, or
   *     when no listener gave any
   * @since 0.3
   */
  static Map<String, String> headers() {
    return io.watukuy.internal.HandOffs.headers();
  }

  /**
   * A sink's health.
   *
   * @param healthy whether the destination takes events now
   * @param detail why not, redacted; null when healthy
   * @since 0.2
   */
  record Health(boolean healthy, @Nullable String detail) {
    private static final Health UP = new Health(true, null);

    /**
     * Up.
     *
     * @return the healthy value
     */
    public static Health up() {
      return UP;
    }

    /**
     * Down, and why.
     *
     * @param detail why, redacted
     * @return a health that is down
     * @throws NullPointerException if {@code detail} is null
     */
    public static Health down(String detail) {
      return new Health(false, Objects.requireNonNull(detail, "detail"));
    }
  }
}
