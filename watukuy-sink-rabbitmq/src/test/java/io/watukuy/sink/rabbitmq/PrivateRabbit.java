package io.watukuy.sink.rabbitmq;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * A RabbitMQ node of a test's own, on free 127.0.0.1 ports, with a small {@code max_message_size}:
 * the broker's only per-message size limit is node-wide (no vhost limit or policy sets one), and
 * the machine's node must keep its own. Started from the installed server's scripts with every file
 * (config, database, logs, Erlang cookie) in {@code dir}; stopped, with its processes, on close.
 */
final class PrivateRabbit implements AutoCloseable {
  static final Path SERVER = Path.of("/usr/lib/rabbitmq/bin/rabbitmq-server");
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

  final int port;
  private final Process process;

  private PrivateRabbit(int port, Process process) {
    this.port = port;
    this.process = process;
  }

  static boolean installed() {
    return Files.isExecutable(SERVER);
  }

  /** Starts a node whose {@code max_message_size} is {@code maxMessageSize} bytes; waits for it. */
  static PrivateRabbit start(Path dir, int maxMessageSize) throws Exception {
    return start(dir, maxMessageSize, "");
  }

  /**
   * The same, with more lines of {@code rabbitmq.conf} (e.g. a memory watermark that raises the
   * alarm at once, which only a node of the test's own may have).
   */
  static PrivateRabbit start(Path dir, int maxMessageSize, String moreConfig) throws Exception {
    int port = freePort();
    int distPort = freePort();
    Path conf = dir.resolve("rabbitmq.conf");
    Files.writeString(
        conf,
        "listeners.tcp.default = 127.0.0.1:"
            + port
            + "\nmax_message_size = "
            + maxMessageSize
            + "\nlog.console = false\n"
            + moreConfig);
    Path plugins = dir.resolve("enabled_plugins");
    Files.writeString(plugins, "[].\n");
    Path envFile = dir.resolve("rabbitmq-env.conf");
    Files.writeString(envFile, "");
    ProcessBuilder pb = new ProcessBuilder(SERVER.toString());
    Map<String, String> env = pb.environment();
    env.put("HOME", dir.toString());
    env.put("RABBITMQ_CONF_ENV_FILE", envFile.toString());
    env.put("RABBITMQ_NODENAME", "watukuy-test-" + ProcessHandle.current().pid() + "@localhost");
    env.put("RABBITMQ_NODE_PORT", Integer.toString(port));
    env.put("RABBITMQ_DIST_PORT", Integer.toString(distPort));
    env.put("RABBITMQ_CONFIG_FILE", conf.toString());
    env.put("RABBITMQ_ENABLED_PLUGINS_FILE", plugins.toString());
    env.put("RABBITMQ_MNESIA_BASE", dir.resolve("mnesia").toString());
    env.put("RABBITMQ_LOG_BASE", dir.resolve("log").toString());
    env.put("RABBITMQ_PID_FILE", dir.resolve("pid").toString());
    pb.redirectErrorStream(true);
    pb.redirectOutput(dir.resolve("server.out").toFile());
    PrivateRabbit rabbit = new PrivateRabbit(port, pb.start());
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!rabbit.process.isAlive())
        throw new IllegalStateException(
            "the test's RabbitMQ node exited: " + Files.readString(dir.resolve("server.out")));
      if (answers(port)) return rabbit;
      Thread.sleep(100);
    }
    rabbit.close();
    throw new IllegalStateException(
        "the test's RabbitMQ node did not listen within " + START_TIMEOUT);
  }

  String uri() {
    return "amqp://guest:guest@127.0.0.1:" + port + "/%2F";
  }

  private static boolean answers(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    process.waitFor();
  }
}
