package io.watukuy.bench;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The NATS JetStream sink ({@code type: nats}, envelope format) into a stream per round that the
 * sink creates (file storage, its default duplicate window), beside jnats publishing the same
 * messages ({@code Nats-Msg-Id} = the delivery key, the event-id header, the expected stream) with
 * {@code publishAsync} to a stream of the same settings, then waiting for every ack of the batch.
 */
final class NatsTarget implements SinkTarget {
  /** The sink's default duplicate window, for the raw client's stream. */
  static final Duration DUPLICATE_WINDOW = Duration.ofMinutes(2);

  private final String url;
  private final String id = Long.toHexString(System.nanoTime() ^ ProcessHandle.current().pid());
  private final Connection connection;
  private final List<String> streams = new ArrayList<>();

  /**
   * @param url the server, {@code nats://host:4222}
   */
  NatsTarget(String url) throws Exception {
    this.url = url;
    connection = Nats.connect(url);
  }

  @Override
  public String name() {
    return "nats";
  }

  @Override
  public String store() {
    return "memory";
  }

  @Override
  public String rawWhat() {
    return "jnats JetStream: publishAsync of the batch (Nats-Msg-Id, expected stream), then every"
        + " ack awaited";
  }

  @Override
  public Map<String, Object> sink(int round, BenchStore store) {
    streams.add(stream("sink", round));
    return Map.of(
        "type",
        "nats",
        "url",
        url,
        "subject",
        subject("sink", round),
        "stream",
        stream("sink", round));
  }

  @Override
  public Raw raw(int round, BenchStore store) throws Exception {
    String stream = stream("raw", round);
    String subject = subject("raw", round);
    JetStreamManagement jsm = connection.jetStreamManagement();
    jsm.addStream(
        StreamConfiguration.builder()
            .name(stream)
            .subjects(subject)
            .storageType(StorageType.File)
            .duplicateWindow(DUPLICATE_WINDOW)
            .build());
    streams.add(stream);
    JetStream js = connection.jetStream();
    return new Raw() {
      @Override
      public void write(List<SinkRecord> batch) throws Exception {
        List<CompletableFuture<PublishAck>> acks = new ArrayList<>(batch.size());
        for (SinkRecord r : batch) {
          Headers headers = new Headers().add("watukuy-event-id", r.eventId());
          NatsMessage message =
              NatsMessage.builder().subject(subject).headers(headers).data(r.envelope()).build();
          acks.add(
              js.publishAsync(
                  message,
                  PublishOptions.builder()
                      .messageId(r.deliveryKey())
                      .expectedStream(stream)
                      .build()));
        }
        for (CompletableFuture<PublishAck> ack : acks) ack.get(30, TimeUnit.SECONDS);
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public Long delivered(int round) throws Exception {
    return connection
        .jetStreamManagement()
        .getStreamInfo(stream("sink", round))
        .getStreamState()
        .getMsgCount();
  }

  private String stream(String pass, int round) {
    return ("WKBENCH_" + id + "_" + pass + "_" + round).toUpperCase(Locale.ROOT);
  }

  private String subject(String pass, int round) {
    return "wkbench." + id + "." + pass + "." + round;
  }

  @Override
  public void close() throws Exception {
    try (connection) {
      JetStreamManagement jsm = connection.jetStreamManagement();
      for (String s : streams) {
        try {
          jsm.deleteStream(s);
        } catch (io.nats.client.JetStreamApiException missing) {
          // a round that failed before the sink created its stream
        }
      }
    }
  }
}
