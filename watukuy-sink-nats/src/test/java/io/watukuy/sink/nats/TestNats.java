package io.watukuy.sink.nats;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StreamInfo;
import io.watukuy.testing.TestServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The machine's NATS server with JetStream (127.0.0.1:4222) as a {@link TestServer}: one connection
 * for the class, and stream names that no other run uses, each stream deleted after the test that
 * took it. A stream {@code WKT_<label>_<random>} goes with the subject prefix {@code
 * wkt-<label>-<random>}, so streams of different runs never capture each other's subjects.
 */
final class TestNats extends TestServer {
  static final String URL = "nats://127.0.0.1:4222";

  private volatile Connection connection;

  private TestNats() {}

  static TestNats local() {
    return new TestNats();
  }

  @Override
  protected void start() throws Exception {
    try {
      connection =
          Nats.connect(
              Options.builder()
                  .server(URL)
                  .connectionTimeout(Duration.ofSeconds(5))
                  .maxReconnects(0)
                  .build());
      connection.jetStreamManagement().getAccountStatistics();
    } catch (IOException e) {
      throw new IllegalStateException(
          "NATS with JetStream is not on "
              + URL
              + " ("
              + e.getMessage()
              + "): start it with scripts/services",
          e);
    }
  }

  @Override
  protected void stop() throws Exception {
    if (connection != null) connection.close();
  }

  @Override
  protected String namespaceName(String label, String random) {
    return "WKT_" + label + "_" + random;
  }

  @Override
  protected void drop(String stream) throws Exception {
    try {
      connection.jetStreamManagement().deleteStream(stream);
    } catch (JetStreamApiException e) {
      if (e.getApiErrorCode() != Streams.STREAM_NOT_FOUND) throw e;
    }
  }

  /** A stream name nobody else uses, deleted after the test (or the class). */
  String newStream(String label) {
    return newNamespace(label);
  }

  /** The subject prefix that goes with a stream from {@link #newStream}. */
  static String prefix(String stream) {
    return stream.toLowerCase(Locale.ROOT).replace('_', '-');
  }

  JetStreamManagement jsm() throws IOException {
    return connection.jetStreamManagement();
  }

  /** Every message of the stream, in stream order, read back by sequence. */
  List<MessageInfo> read(String stream) throws IOException, JetStreamApiException {
    JetStreamManagement jsm = jsm();
    StreamInfo info = jsm.getStreamInfo(stream);
    long first = info.getStreamState().getFirstSequence();
    long last = info.getStreamState().getLastSequence();
    List<MessageInfo> out = new ArrayList<>();
    for (long seq = first; seq <= last && seq > 0; seq++) out.add(jsm.getMessage(stream, seq));
    return out;
  }

  static String body(MessageInfo m) {
    return new String(m.getData(), StandardCharsets.UTF_8);
  }

  static String header(MessageInfo m, String name) {
    return m.getHeaders() == null ? null : m.getHeaders().getFirst(name);
  }
}
