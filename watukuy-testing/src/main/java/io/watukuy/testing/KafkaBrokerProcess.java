package io.watukuy.testing;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real one-node Kafka broker in a process of its own, for tests and benchmarks that talk to
 * Kafka: KRaft mode (broker and controller in one JVM), started from {@code
 * org.apache.kafka:kafka_2.13} on a class path of its own (a folder of jars, such as the {@code
 * target/kafka-broker/} that {@code watukuy-sink-kafka}'s build copies), on free 127.0.0.1 ports,
 * with {@code -Xmx512m}. Its storage is formatted first (what {@code kafka-storage.sh format
 * --standalone} does), then it starts; {@link #start} returns once it accepts connections. Topics
 * are not created on first use ({@code auto.create.topics.enable=false}), as on most production
 * clusters: the caller creates its own. Beside its plaintext listener it has a {@code
 * SASL_PLAINTEXT} one with the {@code PLAIN} mechanism ({@link #saslBootstrap()}), which accepts
 * user {@value #SASL_USER} with password {@value #SASL_PASSWORD} only, so a test of credentials
 * shares the broker rather than starting one of its own. {@link #close()} stops it and removes its
 * data.
 *
 * <p>No Kafka library is needed on the caller's class path: this only starts and stops the process.
 */
public final class KafkaBrokerProcess implements AutoCloseable {
  /** A fixed cluster id: a base64url UUID, as {@code kafka-storage.sh random-uuid} prints. */
  static final String CLUSTER_ID = "d2F0dWt1eS10ZXN0LWthZg";

  /** The one user of the SASL listener. */
  public static final String SASL_USER = "watukuy";

  /** Its password (a test credential of this broker only). */
  public static final String SASL_PASSWORD = "k4fka-sasl-pa55";

  /** The longest the storage format may take. */
  public static final Duration FORMAT_TIMEOUT = Duration.ofSeconds(90);

  /** The longest the broker may take to listen. */
  public static final Duration START_TIMEOUT = Duration.ofSeconds(150);

  /** The longest a stop may take before the process is killed. */
  public static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);

  private final Process process;
  private final String bootstrap;
  private final String saslBootstrap;
  private final Path dir;

  private KafkaBrokerProcess(Process process, String bootstrap, String saslBootstrap, Path dir) {
    this.process = process;
    this.bootstrap = bootstrap;
    this.saslBootstrap = saslBootstrap;
    this.dir = dir;
  }

  /**
   * Formats a fresh storage and starts the broker; returns once it listens.
   *
   * @param classpath a folder holding the broker's jars ({@code kafka_2.13} and its dependencies)
   * @param parent the folder under which the broker's own folder (data, logs) is made
   * @return the running broker
   * @throws IllegalStateException if the class path is missing, the format fails, or the broker
   *     exits or does not listen within {@link #START_TIMEOUT}; the broker's folder (with {@code
   *     format.log} and {@code broker.log}) is kept for a look
   * @throws IOException if the folders or the properties cannot be written
   * @throws InterruptedException if interrupted while waiting
   */
  public static KafkaBrokerProcess start(Path classpath, Path parent)
      throws IOException, InterruptedException {
    if (!Files.isDirectory(classpath))
      throw new IllegalStateException(
          "no Kafka broker class path at "
              + classpath.toAbsolutePath()
              + ": the build copies it (./mvnw -pl watukuy-sink-kafka process-test-resources)");
    Path run = Files.createTempDirectory(Files.createDirectories(parent), "broker-");
    int port = freePort();
    int controller = freePort();
    int sasl = freePort();
    Path props = run.resolve("server.properties");
    Files.writeString(props, serverProperties(port, controller, sasl, run.resolve("data")));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = classpath.toAbsolutePath() + File.separator + "*";

    Process format =
        new ProcessBuilder(
                java,
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                cp,
                "kafka.tools.StorageTool",
                "format",
                "--standalone",
                "-t",
                CLUSTER_ID,
                "-c",
                props.toString())
            .redirectErrorStream(true)
            .redirectOutput(run.resolve("format.log").toFile())
            .start();
    if (!format.waitFor(FORMAT_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      format.destroyForcibly();
      throw new IllegalStateException("kafka storage format did not end in " + FORMAT_TIMEOUT);
    }
    if (format.exitValue() != 0)
      throw new IllegalStateException(
          "kafka storage format failed: " + Files.readString(run.resolve("format.log")));

    Process broker =
        new ProcessBuilder(
                List.of(java, "-Xmx512m", "-Xms128m", "-cp", cp, "kafka.Kafka", props.toString()))
            .redirectErrorStream(true)
            .redirectOutput(run.resolve("broker.log").toFile())
            .start();
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (!accepts(port) || !accepts(sasl)) {
      if (!broker.isAlive())
        throw new IllegalStateException(
            "the Kafka broker exited with "
                + broker.exitValue()
                + "; its log: "
                + run.resolve("broker.log"));
      if (System.nanoTime() > deadline) {
        broker.destroyForcibly();
        throw new IllegalStateException("the Kafka broker did not listen within " + START_TIMEOUT);
      }
      Thread.sleep(200);
    }
    return new KafkaBrokerProcess(broker, "127.0.0.1:" + port, "127.0.0.1:" + sasl, run);
  }

  /**
   * The broker's {@code bootstrap.servers}.
   *
   * @return {@code 127.0.0.1:PORT}
   */
  public String bootstrap() {
    return bootstrap;
  }

  /**
   * The {@code bootstrap.servers} of the SASL listener ({@code SASL_PLAINTEXT}, {@code PLAIN}, user
   * {@value #SASL_USER}, password {@value #SASL_PASSWORD}).
   *
   * @return {@code 127.0.0.1:PORT}
   */
  public String saslBootstrap() {
    return saslBootstrap;
  }

  /**
   * The broker's process, for a test that checks it outlived something.
   *
   * @return the process
   */
  public Process process() {
    return process;
  }

  /**
   * Stops the broker (SIGTERM, then SIGKILL after {@link #STOP_TIMEOUT}) and removes its folder
   * once it has exited.
   *
   * @throws IOException if its folder cannot be removed
   * @throws InterruptedException if interrupted while waiting for it to exit
   */
  @Override
  public void close() throws IOException, InterruptedException {
    process.destroy();
    if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }
    if (!process.isAlive()) deleteTree(dir);
  }

  /**
   * The broker's {@code server.properties}: one KRaft node on 127.0.0.1, replication factors of 1,
   * no topic created on first use.
   *
   * @param port the client listener's port
   * @param controller the controller listener's port
   * @param sasl the SASL_PLAINTEXT listener's port
   * @param data the log folder
   * @return the file's text
   */
  static String serverProperties(int port, int controller, int sasl, Path data) {
    return String.join(
        "\n",
        "process.roles=broker,controller",
        "node.id=1",
        "controller.quorum.bootstrap.servers=127.0.0.1:" + controller,
        "listeners=PLAINTEXT://127.0.0.1:"
            + port
            + ",SASL_PLAINTEXT://127.0.0.1:"
            + sasl
            + ",CONTROLLER://127.0.0.1:"
            + controller,
        "advertised.listeners=PLAINTEXT://127.0.0.1:"
            + port
            + ",SASL_PLAINTEXT://127.0.0.1:"
            + sasl,
        "controller.listener.names=CONTROLLER",
        "inter.broker.listener.name=PLAINTEXT",
        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,"
            + "CONTROLLER:PLAINTEXT",
        "sasl.enabled.mechanisms=PLAIN",
        // The broker side of PLAIN: user_NAME="PASSWORD" lists who may log in.
        "listener.name.sasl_plaintext.plain.sasl.jaas.config="
            + "org.apache.kafka.common.security.plain.PlainLoginModule required user_"
            + SASL_USER
            + "=\""
            + SASL_PASSWORD
            + "\";",
        "log.dirs=" + data,
        "num.partitions=3",
        "auto.create.topics.enable=false",
        "offsets.topic.replication.factor=1",
        "offsets.topic.num.partitions=1",
        "transaction.state.log.replication.factor=1",
        "transaction.state.log.min.isr=1",
        "share.coordinator.state.topic.replication.factor=1",
        "share.coordinator.state.topic.min.isr=1",
        "group.initial.rebalance.delay.ms=0",
        "");
  }

  /**
   * A port nothing listens on now; the broker binds it a moment later.
   *
   * @return a free 127.0.0.1 port
   * @throws IOException if no port can be bound
   */
  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static boolean accepts(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) return;
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
    }
  }
}
