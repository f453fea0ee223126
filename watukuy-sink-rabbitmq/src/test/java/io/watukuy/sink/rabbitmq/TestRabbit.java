package io.watukuy.sink.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import io.watukuy.sink.SinkConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The machine's RabbitMQ (127.0.0.1:5672, guest/guest) with a fresh topic exchange and a durable
 * queue bound to it with {@code #}, named per test run and deleted on close.
 */
final class TestRabbit implements AutoCloseable {
  static final String URI = "amqp://guest:guest@127.0.0.1:5672/%2F";

  final String exchange;
  final String queue;
  private final Connection connection;
  private final Channel channel;

  private TestRabbit(String label) throws Exception {
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    this.exchange = "watukuy-test-" + label + "-" + suffix;
    this.queue = exchange + "-q";
    ConnectionFactory f = new ConnectionFactory();
    f.setUri(URI);
    this.connection = f.newConnection("watukuy test reader");
    this.channel = connection.createChannel();
    channel.exchangeDeclare(exchange, "topic", false);
    channel.queueDeclare(queue, true, false, false, null);
    channel.queueBind(queue, exchange, "#");
  }

  static TestRabbit fresh(String label) throws Exception {
    return new TestRabbit(label);
  }

  /** The sink's settings for this exchange, plus {@code extra}. */
  SinkConfig config(Map<String, ?> extra) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("type", "rabbitmq");
    m.put("uri", URI);
    m.put("exchange", exchange);
    m.putAll(extra);
    return SinkConfig.of(m, Path.of("."));
  }

  RabbitMqSink sink(Map<String, ?> extra) {
    return (RabbitMqSink) new RabbitMqSinkProvider().create(config(extra));
  }

  /**
   * Reads (and acks) messages until {@code count} arrived or {@code within} passed; then waits a
   * little for any extra one, so that a test sees duplicates too.
   */
  List<GetResponse> read(int count, Duration within) throws Exception {
    List<GetResponse> out = new ArrayList<>();
    long deadline = System.nanoTime() + within.toNanos();
    while (out.size() < count && System.nanoTime() < deadline) {
      GetResponse r = channel.basicGet(queue, true);
      if (r == null) Thread.sleep(20);
      else out.add(r);
    }
    for (GetResponse r; (r = channel.basicGet(queue, true)) != null; ) out.add(r);
    return out;
  }

  /** Messages waiting in the queue now. */
  long waiting() throws Exception {
    return channel.messageCount(queue);
  }

  Channel channel() {
    return channel;
  }

  @Override
  public void close() throws Exception {
    try {
      channel.queueDelete(queue);
      channel.exchangeDelete(exchange);
    } finally {
      connection.abort();
    }
  }
}
