package io.watukuy.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A redis-server of a test's own, as a child process on a free port of 127.0.0.1, that a test can
 * stop and start again on the same port. Without {@code dir} nothing is persisted; with it the
 * server keeps an append-only file there, so its data survives a stop and start.
 */
final class PrivateRedis implements AutoCloseable {
  private static final Duration READY = Duration.ofSeconds(15);

  final int port;
  private final Path workDir;
  private final boolean persistent;
  private Process process;

  private PrivateRedis(int port, Path workDir, boolean persistent) {
    this.port = port;
    this.workDir = workDir;
    this.persistent = persistent;
  }

  static PrivateRedis start(Path workDir, boolean persistent)
      throws IOException, InterruptedException {
    PrivateRedis r = new PrivateRedis(freePort(), workDir, persistent);
    r.start();
    return r;
  }

  String endpoint() {
    return "127.0.0.1:" + port;
  }

  void start() throws IOException, InterruptedException {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "redis-server",
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--daemonize",
                "no",
                "--dir",
                workDir.toString()));
    cmd.addAll(
        persistent
            ? List.of("--appendonly", "yes", "--appendfsync", "always")
            : List.of("--appendonly", "no"));
    process =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(workDir.resolve("redis-" + port + ".log").toFile())
            .start();
    long deadline = System.nanoTime() + READY.toNanos();
    while (!ping()) {
      if (!process.isAlive())
        throw new IllegalStateException("redis-server on port " + port + " exited; see " + workDir);
      if (System.nanoTime() > deadline)
        throw new IllegalStateException("redis-server on port " + port + " not ready in " + READY);
      Thread.sleep(20);
    }
  }

  /**
   * Stops the server (SIGTERM: a persistent one writes its file first) and waits for it to exit.
   */
  void stop() throws InterruptedException {
    if (process == null) return;
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(5, TimeUnit.SECONDS);
    }
    process = null;
  }

  private boolean ping() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 200);
      s.setSoTimeout(500);
      OutputStream out = s.getOutputStream();
      out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      byte[] buf = new byte[7];
      int n = in.readNBytes(buf, 0, 7);
      return n == 7 && new String(buf, StandardCharsets.US_ASCII).equals("+PONG\r\n");
    } catch (IOException e) {
      return false;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() {
    try {
      stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (process != null) process.destroyForcibly();
    }
  }
}
