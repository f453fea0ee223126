package io.watukuy.sink.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.ConfigException;
import io.watukuy.sink.Sink;
import io.watukuy.sink.SinkConfig;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A NATS server that refuses the sink's token (docs/sinks.md, "Configuration"): a config error at
 * open naming the sink, never an outage retried forever, and the token never shown. Against a real
 * {@code nats-server} this test starts on a free 127.0.0.1 port with a token of its own.
 */
class NatsAuthRefusedTest {
  @TempDir Path dir;

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aTokenTheServerRefusesIsAConfigErrorNamingTheSink() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Process server =
        new ProcessBuilder(
                "nats-server",
                "-a",
                "127.0.0.1",
                "-p",
                Integer.toString(port),
                "--auth",
                "r1ght-t0k3n")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("nats.log").toFile())
            .start();
    try {
      awaitPort(port);
      Sink sink =
          new NatsSinkProvider()
              .create(
                  SinkConfig.of(
                      Map.of(
                          "type", "nats",
                          "url", "nats://127.0.0.1:" + port,
                          "token", "wr0ng-t0k3n",
                          "ackTimeout", "2s"),
                      dir));
      try {
        assertThatThrownBy(sink::open)
            .isInstanceOf(ConfigException.class)
            .hasMessageStartingWith(
                sink.name() + " cannot start: the server refused the credentials")
            .hasMessageNotContaining("wr0ng-t0k3n");
      } finally {
        sink.close();
      }
    } finally {
      server.destroy();
      assertThat(server.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** Up to 10 s, in 50 ms steps, until the server accepts connections. */
  private static void awaitPort(int port) throws InterruptedException {
    for (int i = 0; i < 200; i++) {
      try (Socket ignored = new Socket("127.0.0.1", port)) {
        return;
      } catch (java.io.IOException notYet) {
        Thread.sleep(50);
      }
    }
    throw new AssertionError("nats-server did not listen on " + port + " within 10 s");
  }
}
