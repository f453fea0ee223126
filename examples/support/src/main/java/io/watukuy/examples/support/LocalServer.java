package io.watukuy.examples.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A third-party server running as a child process on {@code 127.0.0.1}: started by {@link #start},
 * ready once its port accepts connections, stopped (with every process it spawned) by {@link
 * #close()}. Its stdout and stderr go to {@code server.log} in its working folder.
 */
public final class LocalServer implements AutoCloseable {
  private final String name;
  private final Process process;
  private final int port;
  private final Path log;

  private LocalServer(String name, Process process, int port, Path log) {
    this.name = name;
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /**
   * A loopback port that was free a moment ago.
   *
   * @return a port number from the ephemeral range
   */
  public static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Starts {@code command} in {@code workDir} and waits until {@code 127.0.0.1:port} accepts a
   * connection.
   *
   * @param name what the server is called in messages
   * @param command the program and its arguments; it must listen on {@code port}
   * @param workDir its working folder, created if missing; {@code server.log} is written there
   * @param port the loopback port it listens on
   * @param within how long to wait for the port (a node server needs about one second)
   * @return the running server
   * @throws IllegalStateException if the process exits or the port stays closed for {@code within};
   *     the message carries the server's log
   */
  public static LocalServer start(
      String name, List<String> command, Path workDir, int port, Duration within) {
    try {
      Files.createDirectories(workDir);
      Path log = workDir.resolve("server.log");
      Process p =
          new ProcessBuilder(command)
              .directory(workDir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      LocalServer server = new LocalServer(name, p, port, log);
      long deadline = System.nanoTime() + within.toNanos();
      while (!server.accepts()) {
        if (!p.isAlive() || System.nanoTime() > deadline) {
          server.close();
          throw new IllegalStateException(
              name
                  + " did not listen on 127.0.0.1:"
                  + port
                  + " within "
                  + within
                  + ":\n"
                  + Files.readString(log));
        }
        Thread.sleep(50);
      }
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name + " " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting " + name, e);
    }
  }

  private boolean accepts() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * The server's base URL.
   *
   * @return {@code http://127.0.0.1:PORT}, no trailing slash
   */
  public String url() {
    return "http://127.0.0.1:" + port;
  }

  /**
   * The port it listens on.
   *
   * @return the port number
   */
  public int port() {
    return port;
  }

  /**
   * What the server printed so far, for a failing test's message.
   *
   * @return its stdout and stderr, interleaved
   */
  public String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /** Stops the server and its children: SIGTERM, then SIGKILL after 5 s. */
  @Override
  public void close() {
    List<ProcessHandle> children = process.descendants().toList();
    process.destroy();
    children.forEach(ProcessHandle::destroy);
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        children.forEach(ProcessHandle::destroyForcibly);
        process.waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return name + " at " + url();
  }
}
