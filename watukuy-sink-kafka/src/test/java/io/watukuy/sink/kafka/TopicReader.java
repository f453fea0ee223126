package io.watukuy.sink.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Reads a topic back from its beginning, every partition, without a consumer group. */
final class TopicReader {
  private TopicReader() {}

  /**
   * Every record of a topic, partition by partition in offset order, once the end offsets read at
   * the start are reached or {@code timeout} passed (then what was read).
   *
   * @param bootstrap the broker
   * @param topic the topic
   * @param timeout how long to read at most
   * @return the records
   */
  static List<ConsumerRecord<byte[], byte[]>> readAll(
      String bootstrap, String topic, Duration timeout) {
    Properties p = new Properties();
    p.setProperty("bootstrap.servers", bootstrap);
    p.setProperty("enable.auto.commit", "false");
    p.setProperty("isolation.level", "read_committed");
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      c.partitionsFor(topic, timeout)
          .forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
      c.assign(parts);
      c.seekToBeginning(parts);
      var ends = c.endOffsets(parts, timeout);
      List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        boolean done = true;
        for (TopicPartition tp : parts) if (c.position(tp, timeout) < ends.get(tp)) done = false;
        if (done) break;
        c.poll(Duration.ofMillis(200)).forEach(out::add);
      }
      out.sort(
          (a, b) ->
              a.partition() != b.partition()
                  ? Integer.compare(a.partition(), b.partition())
                  : Long.compare(a.offset(), b.offset()));
      return out;
    }
  }

  /**
   * A header's value as text.
   *
   * @param r a record
   * @param name the header
   * @return its last value, or null
   */
  static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    var h = r.headers().lastHeader(name);
    return h == null ? null : KafkaBroker.utf8(h.value());
  }
}
