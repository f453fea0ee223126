package io.watukuy.sink.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ReturnListener;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A channel in publisher-confirm mode that remembers which publishes the broker confirmed and which
 * messages it returned as unroutable. Used by one batch at a time (channels are not thread-safe);
 * the listeners run on the connection's thread, hence the concurrent fields.
 */
final class ConfirmedChannel implements ConfirmListener, ReturnListener {
  private final Channel channel;

  /** Confirmed one by one. */
  private final ConcurrentSkipListSet<Long> acked = new ConcurrentSkipListSet<>();

  /** Everything up to here is confirmed (an ack with {@code multiple}). */
  private final AtomicLong ackedUpTo = new AtomicLong();

  /** Returned messages: message id to the broker's reply text. */
  private final Map<String, String> returned = new ConcurrentHashMap<>();

  private ConfirmedChannel(Channel channel) {
    this.channel = channel;
  }

  static ConfirmedChannel open(Connection connection) throws IOException {
    Channel channel = connection.createChannel();
    if (channel == null) throw new IOException("the broker has no channel left on the connection");
    ConfirmedChannel c = new ConfirmedChannel(channel);
    channel.confirmSelect();
    channel.addConfirmListener(c);
    channel.addReturnListener(c);
    return c;
  }

  Channel channel() {
    return channel;
  }

  boolean isOpen() {
    return channel.isOpen();
  }

  /** Forgets what an earlier batch saw; the next publish's tag is the batch's first. */
  void startBatch() {
    acked.headSet(channel.getNextPublishSeqNo()).clear();
    returned.clear();
  }

  /** The tag the next publish gets. */
  long nextTag() {
    return channel.getNextPublishSeqNo();
  }

  /** Publishes with {@code mandatory}, so a message that reaches no queue is returned. */
  void publish(String exchange, String routingKey, AMQP.BasicProperties props, byte[] body)
      throws IOException {
    channel.basicPublish(exchange, routingKey, true, props, body);
  }

  boolean confirmed(long tag) {
    return tag <= ackedUpTo.get() || acked.contains(tag);
  }

  /** The reply text of a returned message, or null. */
  String returned(String messageId) {
    return returned.get(messageId);
  }

  boolean anyReturned() {
    return !returned.isEmpty();
  }

  void closeQuietly() {
    try {
      if (channel.isOpen()) channel.abort();
    } catch (IOException | RuntimeException ignored) {
      // abort() is best effort: the channel is dropped either way
    }
  }

  @Override
  public void handleAck(long deliveryTag, boolean multiple) {
    if (multiple) ackedUpTo.accumulateAndGet(deliveryTag, Math::max);
    else acked.add(deliveryTag);
  }

  @Override
  public void handleNack(long deliveryTag, boolean multiple) {
    // waitForConfirms reports nacks; a nacked tag stays unconfirmed here
  }

  @Override
  public void handleReturn(
      int replyCode,
      String replyText,
      String exchange,
      String routingKey,
      AMQP.BasicProperties properties,
      byte[] body) {
    String id = properties.getMessageId();
    returned.put(id == null ? "" : id, replyCode + " " + replyText);
  }
}
