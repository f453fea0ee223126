package io.watukuy.sink.kafka;

import io.watukuy.ChangeEvent;
import io.watukuy.ConfigException;
import io.watukuy.HandlerUnavailableException;
import io.watukuy.sink.Sink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jspecify.annotations.Nullable;

/**
 * Writes a poller's events to a Kafka topic (docs/sinks.md, "Kafka"), one record per event, with an
 * idempotent producer and {@code acks=all}.
 *
 * <p><b>What it promises.</b> At-least-once (G1): {@link #handle} returns only once the broker
 * acknowledged every record it reports handled, and the engine acks the batch in the store after
 * that. Order per ordering key (G3): the record key is the ordering key, so one key's records go to
 * one partition, and the idempotent producer keeps a partition's records in the order sent across
 * its own retries. A crash between the broker's ack and the store's ack writes the batch again
 * (G9): at most {@code concurrency × batchSize} records per crash, each a repeat of a record with
 * the same delivery key (header {@code watukuy-delivery-key}, or the CloudEvents {@code ce_id}).
 *
 * <p><b>Failures.</b> Brokers down, unreachable or refusing the credentials: {@link
 * HandlerUnavailableException}, the batch stays pending, nothing parked; every wait is bounded by
 * the producer's {@code max.block.ms} and {@code delivery.timeout.ms} ({@link KafkaSettings}). A
 * record the broker or client refuses for good (too large, topic authorization, an invalid topic
 * name): that event is reported failed ({@code BatchResult.failed}) and the later events of its
 * ordering key in the batch are not sent, since they come again after it and would otherwise land
 * before it in the partition (G7).
 *
 * <p>Thread-safe: one producer serves every handler thread.
 *
 * @since 0.2
 */
public final class KafkaSink implements Sink {
  private final KafkaSettings settings;
  private final String name;
  private final Object lock = new Object();
  // Guarded by lock for writes; read without it once set
  private volatile @Nullable Producer<byte[], byte[]> producer;
  private volatile boolean closed;

  /**
   * A sink, not yet connected ({@link #open()} connects).
   *
   * @param settings where and how to write
   * @throws NullPointerException if {@code settings} is null
   */
  public KafkaSink(KafkaSettings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.name = "kafka topic " + settings.topic();
  }

  /**
   * {@code kafka topic <template>}: never a property value (a SASL config, a key store password).
   *
   * @return the name
   */
  @Override
  public String name() {
    return name;
  }

  /**
   * Checks the brokers and the topic, then makes the producer; see {@link TopicCheck}. Waits at
   * most the producer's {@code max.block.ms} (default {@value KafkaSettings#DEFAULT_MAX_BLOCK_MS}
   * ms).
   *
   * @throws ConfigException naming this sink when it can never work as configured: a constant topic
   *     that does not exist while the brokers do not create topics, credentials the brokers refuse,
   *     a client property the client rejects
   * @throws java.io.IOException naming this sink when the brokers cannot be reached in time:
   *     retried at the next cycle
   */
  @Override
  public void open() throws Exception {
    new TopicCheck(settings, name).run();
    producer();
  }

  @Override
  public Health health() {
    if (closed) return Health.down(name + " is closed");
    return producer == null ? Health.down(name + " is not open") : Health.up();
  }

  /**
   * Sends the batch's records, flushes the producer once, then waits for the broker's ack of each.
   *
   * @param events one key's events, in sequence order
   * @return the events the brokers refused for good, the first of each ordering key
   * @throws HandlerUnavailableException when the brokers cannot take records now
   * @throws Exception for another failure of the client: every event of the batch fails
   */
  @Override
  public BatchResult handle(List<ChangeEvent<Object>> events) throws Exception {
    if (events.isEmpty()) return BatchResult.ok();
    Producer<byte[], byte[]> p = producer();
    String topic = settings.topic().render(events.get(0).key());
    String invalid = TopicName.problem(topic);

    Set<String> stopped = new HashSet<>();
    BatchResult result = BatchResult.ok();
    List<Sent> sent = new ArrayList<>(events.size());
    Throwable unavailable = null;
    Throwable other = null;
    for (ChangeEvent<Object> event : events) {
      if (stopped.contains(event.orderingKey())) continue;
      if (invalid != null) {
        result = result.andFailed(event, new InvalidTopicException(name + ": " + invalid));
        stopped.add(event.orderingKey());
        continue;
      }
      Future<RecordMetadata> f = p.send(KafkaRecords.of(topic, event, settings.format()));
      // A record the client refuses before it is queued (too large, topic not authorized, no
      // metadata within max.block.ms) has a future that is already done: stop its key here, before
      // a later event of that key is queued ahead of it.
      Throwable early = f.isDone() ? failure(f) : null;
      if (early == null) {
        sent.add(new Sent(event, f));
        continue;
      }
      SendFailures.Kind kind = SendFailures.kind(early);
      if (kind == SendFailures.Kind.REJECTED) {
        result = result.andFailed(event, early);
        stopped.add(event.orderingKey());
      } else if (kind == SendFailures.Kind.UNAVAILABLE) {
        // The brokers are out of reach: each further send would wait max.block.ms again.
        unavailable = early;
        break;
      } else {
        other = early;
        break;
      }
    }
    // One flush per batch: the batch's records leave now rather than after linger.ms (5 ms by
    // default since Kafka 4.0), which the handler thread would otherwise wait out on every batch.
    if (!sent.isEmpty() && unavailable == null && other == null) p.flush();
    for (Sent s : sent) {
      Throwable late = failure(s.future());
      if (late == null || stopped.contains(s.event().orderingKey())) continue;
      switch (SendFailures.kind(late)) {
        case REJECTED -> {
          result = result.andFailed(s.event(), late);
          stopped.add(s.event().orderingKey());
        }
        case UNAVAILABLE -> unavailable = unavailable == null ? late : unavailable;
        case OTHER -> other = other == null ? late : other;
      }
    }
    if (unavailable != null)
      throw new HandlerUnavailableException(
          name + ": the brokers did not take the batch: " + message(unavailable), unavailable);
    if (other != null) throw new KafkaException(name + ": " + message(other), other);
    return result;
  }

  /**
   * Flushes the records in flight and closes the producer, waiting at most {@code
   * delivery.timeout.ms}.
   */
  @Override
  public void close() {
    Producer<byte[], byte[]> p;
    synchronized (lock) {
      closed = true;
      p = producer;
      producer = null;
    }
    if (p == null) return;
    p.flush();
    p.close(Duration.ofMillis(KafkaSettings.DEFAULT_DELIVERY_TIMEOUT_MS));
  }

  @Override
  public String toString() {
    return name;
  }

  private Producer<byte[], byte[]> producer() {
    Producer<byte[], byte[]> p = producer;
    if (p != null) return p;
    synchronized (lock) {
      if (closed) throw new IllegalStateException(name + " is closed");
      if (producer == null) {
        try {
          producer =
              new KafkaProducer<>(
                  settings.producer(), new ByteArraySerializer(), new ByteArraySerializer());
        } catch (KafkaException e) {
          throw new ConfigException(
              name + ": the Kafka client refused its properties: " + message(e), null);
        }
      }
      return Objects.requireNonNull(producer);
    }
  }

  private String message(Throwable e) {
    StringBuilder text = new StringBuilder();
    for (Throwable t = e; t != null && text.length() < 1000; t = t.getCause()) {
      if (text.length() > 0) text.append(": ");
      text.append(t.getClass().getSimpleName()).append(' ').append(t.getMessage());
      if (t.getCause() == t) break;
    }
    return Secrets.scrub(text.toString(), settings.properties());
  }

  private static @Nullable Throwable failure(Future<RecordMetadata> f) throws InterruptedException {
    try {
      f.get();
      return null;
    } catch (ExecutionException e) {
      return e.getCause() == null ? e : e.getCause();
    }
  }

  /** A record handed to the producer, and its event. */
  private record Sent(ChangeEvent<Object> event, Future<RecordMetadata> future) {}
}
