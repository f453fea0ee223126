package io.watukuy.bench;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The RabbitMQ sink ({@code type: rabbitmq}, envelope format) into an exchange per round bound to a
 * durable queue, beside the client ({@code amqp-client}) publishing the same messages (persistent,
 * {@code message_id} = the delivery key, the event-id header, {@code mandatory}) on a channel in
 * publisher-confirm mode to an exchange and queue of their own, waiting for the confirms once per
 * batch.
 */
final class RabbitMqTarget implements SinkTarget {
  /** The routing key of every message, and of the queue's binding. */
  static final String ROUTING_KEY = "bench";

  private final String uri;
  private final String prefix =
      "wkbench." + Long.toHexString(System.nanoTime() ^ ProcessHandle.current().pid()) + ".";
  private final Connection admin;
  private final List<String> made = new ArrayList<>();

  /**
   * @param uri the broker, {@code amqp://user:password@host:port/vhost}
   */
  RabbitMqTarget(String uri) throws Exception {
    this.uri = uri;
    admin = factory(uri).newConnection("watukuy-bench-admin");
  }

  private static ConnectionFactory factory(String uri) throws Exception {
    ConnectionFactory f = new ConnectionFactory();
    f.setUri(uri);
    f.setAutomaticRecoveryEnabled(false);
    return f;
  }

  @Override
  public String name() {
    return "rabbitmq";
  }

  @Override
  public String store() {
    return "memory";
  }

  @Override
  public String rawWhat() {
    return "amqp-client: persistent mandatory publishes with message_id on a confirm-mode channel,"
        + " waitForConfirmsOrDie once per batch";
  }

  @Override
  public Map<String, Object> sink(int round, BenchStore store) throws Exception {
    return Map.of(
        "type",
        "rabbitmq",
        "uri",
        uri,
        "exchange",
        declare("sink", round),
        "routingKey",
        ROUTING_KEY);
  }

  @Override
  public Raw raw(int round, BenchStore store) throws Exception {
    String exchange = declare("raw", round);
    Connection connection = factory(uri).newConnection("watukuy-bench-raw");
    Channel channel = connection.createChannel();
    channel.confirmSelect();
    return new Raw() {
      @Override
      public void write(List<SinkRecord> batch) throws Exception {
        for (SinkRecord r : batch) {
          AMQP.BasicProperties props =
              new AMQP.BasicProperties.Builder()
                  .contentType("application/json")
                  .deliveryMode(2)
                  .messageId(r.deliveryKey())
                  .headers(Map.of("watukuy-event-id", r.eventId()))
                  .build();
          channel.basicPublish(exchange, ROUTING_KEY, true, props, r.envelope());
        }
        channel.waitForConfirmsOrDie(30_000);
      }

      @Override
      public void close() throws Exception {
        connection.close();
      }
    };
  }

  @Override
  public Long delivered(int round) throws Exception {
    try (Channel c = admin.createChannel()) {
      return (long) c.queueDeclarePassive(name("sink", round)).getMessageCount();
    }
  }

  /** A durable direct exchange and queue of a pass, bound by {@link #ROUTING_KEY}. */
  private String declare(String pass, int round) throws Exception {
    String name = name(pass, round);
    try (Channel c = admin.createChannel()) {
      c.exchangeDeclare(name, "direct", true);
      c.queueDeclare(name, true, false, false, null);
      c.queueBind(name, name, ROUTING_KEY);
    }
    made.add(name);
    return name;
  }

  private String name(String pass, int round) {
    return prefix + pass + "." + round;
  }

  @Override
  public void close() throws Exception {
    try (admin;
        Channel c = admin.createChannel()) {
      for (String name : made) {
        c.queueDelete(name);
        c.exchangeDelete(name);
      }
    }
  }
}
