package io.watukuy.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A nats-server of the test's own, with JetStream and authentication, on a free 127.0.0.1 port: the
 * machine's shared server takes anyone, so a test of credentials needs a server that refuses.
 * Started from {@code /usr/sbin/nats-server} (or the system property {@code watukuy.nats.server});
 * its storage and log go in the caller's folder ({@code nats-PORT}, {@code nats-PORT.log}); {@link
 * #close()} stops it. Waits at most 10 s for it to listen.
 *
 * @since 0.2
 */
public final class NatsServerProcess implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(10);
  private static final String BINARY =
      System.getProperty("watukuy.nats.server", "/usr/sbin/nats-server");

  private final Process process;
  private final int port;

  private NatsServerProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /**
   * A server that accepts only {@code token} ({@code --auth}).
   *
   * @param dir a folder of the test's own, for the server's storage and log
   * @param token the one token it accepts
   * @return the started server, listening
   * @throws IOException when the process cannot start
   * @throws InterruptedException when interrupted while waiting for it
   * @throws IllegalStateException when the binary is missing, or the server exits or does not
   *     listen within 10 s
   */
  public static NatsServerProcess withToken(Path dir, String token)
      throws IOException, InterruptedException {
    return start(dir, List.of("--auth", token));
  }

  /**
   * A server that accepts only {@code user} with {@code password}.
   *
   * @param dir a folder of the test's own, for the server's storage and log
   * @param user the one user
   * @param password its password
   * @return the started server, listening
   * @throws IOException when the process cannot start
   * @throws InterruptedException when interrupted while waiting for it
   * @throws IllegalStateException as for {@link #withToken}
   */
  public static NatsServerProcess withUser(Path dir, String user, String password)
      throws IOException, InterruptedException {
    return start(dir, List.of("--user", user, "--pass", password));
  }

  private static NatsServerProcess start(Path dir, List<String> auth)
      throws IOException, InterruptedException {
    if (!Files.isExecutable(Path.of(BINARY)))
      throw new IllegalStateException(BINARY + " is missing: install nats-server");
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Path storage = Files.createDirectories(dir.resolve("nats-" + port));
    List<String> command = new ArrayList<>();
    command.addAll(List.of(BINARY, "-a", "127.0.0.1", "-p", Integer.toString(port), "-js", "-sd"));
    command.add(storage.toString());
    command.addAll(auth);
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("nats-" + port + ".log").toFile())
            .start();
    NatsServerProcess server = new NatsServerProcess(p, port);
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!p.isAlive())
        throw new IllegalStateException("nats-server exited with " + p.exitValue() + " at start");
      try (Socket probe = new Socket()) {
        probe.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return server;
      } catch (IOException notYet) {
        Thread.sleep(20);
      }
    }
    server.close();
    throw new IllegalStateException("nats-server did not listen on " + port + " within 10 s");
  }

  /**
   * Where it listens.
   *
   * @return {@code nats://127.0.0.1:PORT}, no credentials
   */
  public String url() {
    return "nats://127.0.0.1:" + port;
  }

  /**
   * Stops the server: SIGTERM, then SIGKILL after 5 s.
   *
   * @throws InterruptedException when interrupted while waiting for it to exit
   */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(5, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(5, TimeUnit.SECONDS);
    }
  }
}
