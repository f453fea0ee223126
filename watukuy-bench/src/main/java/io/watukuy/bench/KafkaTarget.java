package io.watukuy.bench;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The Kafka sink ({@code type: kafka}, envelope format) into a topic of 3 partitions per round,
 * beside a {@link KafkaProducer} with the sink's durability ({@code enable.idempotence=true},
 * {@code acks=all}) sending the same records (key = the ordering key, value = the envelope, the
 * same two headers) to a topic of its own: the batch's records sent, one {@code flush()}, then
 * every record's ack checked.
 */
final class KafkaTarget implements SinkTarget {
  /** Partitions of each topic, as the test broker's {@code num.partitions}. */
  static final int PARTITIONS = 3;

  private final String bootstrap;
  private final String prefix =
      "wkbench-" + Long.toHexString(System.nanoTime() ^ ProcessHandle.current().pid()) + "-";
  private final Admin admin;
  private final List<String> topics = new ArrayList<>();

  /**
   * @param bootstrap the broker's {@code bootstrap.servers}
   */
  KafkaTarget(String bootstrap) {
    this.bootstrap = bootstrap;
    Properties p = new Properties();
    p.setProperty("bootstrap.servers", bootstrap);
    admin = Admin.create(p);
  }

  @Override
  public String name() {
    return "kafka";
  }

  @Override
  public String store() {
    return "memory";
  }

  @Override
  public double target() {
    return 0.5;
  }

  @Override
  public String rawWhat() {
    return "KafkaProducer (enable.idempotence, acks=all): a batch's records sent, one flush(), every"
        + " ack checked";
  }

  @Override
  public Map<String, Object> sink(int round, BenchStore store) throws Exception {
    return Map.of("type", "kafka", "bootstrap", bootstrap, "topic", topic("sink", round));
  }

  @Override
  public Raw raw(int round, BenchStore store) throws Exception {
    String topic = topic("raw", round);
    Map<String, Object> config = new HashMap<>();
    config.put("bootstrap.servers", bootstrap);
    config.put("enable.idempotence", "true");
    config.put("acks", "all");
    KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    // The metadata before the clock starts, as the sink's open() does.
    producer.partitionsFor(topic);
    return new Raw() {
      @Override
      public void write(List<SinkRecord> batch) throws Exception {
        List<Future<RecordMetadata>> acks = new ArrayList<>(batch.size());
        for (SinkRecord r : batch) {
          List<Header> headers =
              List.of(
                  new RecordHeader("watukuy-delivery-key", utf8(r.deliveryKey())),
                  new RecordHeader("watukuy-event-id", utf8(r.eventId())));
          acks.add(
              producer.send(
                  new ProducerRecord<>(topic, null, utf8(r.orderingKey()), r.envelope(), headers)));
        }
        producer.flush();
        for (Future<RecordMetadata> ack : acks) ack.get(30, TimeUnit.SECONDS);
      }

      @Override
      public void close() {
        producer.close();
      }
    };
  }

  @Override
  public Long delivered(int round) throws Exception {
    String topic = topic("sink", round);
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (int p = 0; p < PARTITIONS; p++)
      latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
    long sum = 0;
    for (var info : admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).values())
      sum += info.offset();
    return sum;
  }

  /** Creates the topic of a pass (the broker creates none on first use) and returns its name. */
  private String topic(String pass, int round) throws Exception {
    String name = prefix + pass + "-" + round;
    if (!topics.contains(name)) {
      admin
          .createTopics(List.of(new NewTopic(name, PARTITIONS, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
      topics.add(name);
    }
    return name;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws Exception {
    try (admin) {
      if (!topics.isEmpty()) admin.deleteTopics(topics).all().get(30, TimeUnit.SECONDS);
    }
  }
}
