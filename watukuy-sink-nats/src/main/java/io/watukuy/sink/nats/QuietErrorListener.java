package io.watukuy.sink.nats;

import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's asynchronous errors (a lost connection, a server error line) as one warning each on
 * the {@code io.watukuy.sink.nats} logger, redacted: the client's own default listener would log
 * them elsewhere, with the server URL as given, credentials included.
 */
final class QuietErrorListener implements ErrorListener {
  private static final Logger LOG = LoggerFactory.getLogger("io.watukuy.sink.nats");

  private final String sink;
  private final NatsServerUrl url;

  QuietErrorListener(String sink, NatsServerUrl url) {
    this.sink = sink;
    this.url = url;
  }

  @Override
  public void errorOccurred(Connection conn, String error) {
    LOG.warn("sink {}: server error: {}", sink, url.redact(String.valueOf(error)));
  }

  @Override
  public void exceptionOccurred(Connection conn, Exception exp) {
    LOG.warn("sink {}: {}", sink, url.redact(String.valueOf(exp)));
  }
}
