package io.watukuy.sink.kafka;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One real Kafka broker for all of this module's tests: KRaft mode (broker and controller in one
 * process), from {@code org.apache.kafka:kafka_2.13} of the client's version on a class path of its
 * own ({@code target/kafka-broker/}, copied by the build from {@code
 * src/test/kafka-broker/pom.xml}), on free 127.0.0.1 ports, with {@code -Xmx512m}. Its storage is
 * formatted first (what {@code kafka-storage.sh format --standalone} does), then it starts; the
 * first test class that uses it waits for it, and the JUnit run stops it at the end. Topics are not
 * created on first use ({@code auto.create.topics.enable=false}), as on most production clusters:
 * each test creates its own. Beside its plaintext listener it has a {@code SASL_PLAINTEXT} one with
 * the {@code PLAIN} mechanism ({@link #saslBootstrap()}), which accepts user {@value #SASL_USER}
 * with password {@value #SASL_PASSWORD} only: a test of credentials shares this broker rather than
 * starting one of its own.
 *
 * <p>Use: {@code @ExtendWith(KafkaBroker.class)} and a {@code KafkaBroker} parameter.
 */
public final class KafkaBroker implements BeforeAllCallback, ParameterResolver {
  /** A fixed cluster id: a base64url UUID, as {@code kafka-storage.sh random-uuid} prints. */
  static final String CLUSTER_ID = "d2F0dWt1eS10ZXN0LWthZg";

  /** The one user of the SASL listener. */
  static final String SASL_USER = "watukuy";

  /** Its password. */
  static final String SASL_PASSWORD = "k4fka-sasl-pa55";

  static final Duration FORMAT_TIMEOUT = Duration.ofSeconds(90);
  static final Duration START_TIMEOUT = Duration.ofSeconds(150);
  static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);

  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(KafkaBroker.class);

  /** The running broker, once per JUnit run. */
  private static final class Running
      implements ExtensionContext.Store.CloseableResource, AutoCloseable {
    final Process process;
    final String bootstrap;
    final String saslBootstrap;
    final Path dir;

    Running(Process process, String bootstrap, String saslBootstrap, Path dir) {
      this.process = process;
      this.bootstrap = bootstrap;
      this.saslBootstrap = saslBootstrap;
      this.dir = dir;
    }

    @Override
    public void close() throws InterruptedException, IOException {
      process.destroy();
      if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      }
      // The broker's data and logs go with it; a failed start keeps them (see start()).
      if (!process.isAlive()) deleteTree(dir);
    }
  }

  private Running running;

  /** JUnit makes it. */
  public KafkaBroker() {}

  @Override
  public void beforeAll(ExtensionContext context) {
    running =
        context
            .getRoot()
            .getStore(NS)
            .getOrComputeIfAbsent(Running.class, k -> start(), Running.class);
  }

  @Override
  public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
    return p.getParameter().getType() == KafkaBroker.class;
  }

  @Override
  public Object resolveParameter(ParameterContext p, ExtensionContext e) {
    return this;
  }

  /**
   * The broker's {@code bootstrap.servers}.
   *
   * @return {@code 127.0.0.1:PORT}
   */
  public String bootstrap() {
    return running.bootstrap;
  }

  /**
   * The {@code bootstrap.servers} of the SASL listener ({@code SASL_PLAINTEXT}, {@code PLAIN}, user
   * {@value #SASL_USER}, password {@value #SASL_PASSWORD}).
   *
   * @return {@code 127.0.0.1:PORT}
   */
  public String saslBootstrap() {
    return running.saslBootstrap;
  }

  /**
   * Creates a topic.
   *
   * @param name the topic
   * @param partitions how many partitions
   * @param config topic configs, e.g. {@code max.message.bytes}
   */
  public void createTopic(String name, int partitions, Map<String, String> config)
      throws Exception {
    try (Admin admin = admin()) {
      admin
          .createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(config)))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
  }

  /**
   * An admin client of the broker; the caller closes it.
   *
   * @return the client
   */
  public Admin admin() {
    Properties p = new Properties();
    p.setProperty("bootstrap.servers", bootstrap());
    return Admin.create(p);
  }

  /** The broker's process, for a test that checks it outlived something. */
  Process process() {
    return running.process;
  }

  private static Running start() {
    try {
      Path classpath =
          Path.of(System.getProperty("watukuy.kafka.broker.classpath", "target/kafka-broker"));
      if (!Files.isDirectory(classpath))
        throw new IllegalStateException(
            "no Kafka broker class path at "
                + classpath.toAbsolutePath()
                + ": the build copies it (./mvnw -pl watukuy-sink-kafka process-test-resources)");
      Path dir = Files.createDirectories(Path.of("target", "kafka-test")).toAbsolutePath();
      Path run = Files.createTempDirectory(dir, "broker-");
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

      List<String> command = new ArrayList<>(List.of(java, "-Xmx512m", "-Xms128m", "-cp", cp));
      command.addAll(List.of("kafka.Kafka", props.toString()));
      Process broker =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(run.resolve("broker.log").toFile())
              .start();
      Running r = new Running(broker, "127.0.0.1:" + port, "127.0.0.1:" + sasl, run);
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
          throw new IllegalStateException(
              "the Kafka broker did not listen within " + START_TIMEOUT);
        }
        Thread.sleep(200);
      }
      return r;
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the Kafka broker: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting the Kafka broker", e);
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) return;
    try (var paths = Files.walk(root)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(p);
    }
  }

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
            "")
        + "";
  }

  /** A port nothing listens on now; the broker binds it a moment later. */
  static int freePort() throws IOException {
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

  static String utf8(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
