package io.watukuy.sink.kafka;

import io.watukuy.testing.KafkaBrokerProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
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
 * One real Kafka broker for all of this module's tests: a {@link KafkaBrokerProcess} (KRaft mode,
 * {@code org.apache.kafka:kafka_2.13} of the client's version on a class path of its own, {@code
 * target/kafka-broker/}, copied by the build from {@code src/test/kafka-broker/pom.xml}; free
 * 127.0.0.1 ports; {@code -Xmx512m}; storage formatted first). The first test class that uses it
 * waits for it, and the JUnit run stops it at the end. Topics are not created on first use ({@code
 * auto.create.topics.enable=false}), as on most production clusters: each test creates its own.
 * Beside its plaintext listener it has a {@code SASL_PLAINTEXT} one ({@link #saslBootstrap()}).
 *
 * <p>Use: {@code @ExtendWith(KafkaBroker.class)} and a {@code KafkaBroker} parameter.
 */
public final class KafkaBroker implements BeforeAllCallback, ParameterResolver {
  /** The one user of the SASL listener. */
  static final String SASL_USER = KafkaBrokerProcess.SASL_USER;

  /** Its password. */
  static final String SASL_PASSWORD = KafkaBrokerProcess.SASL_PASSWORD;

  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(KafkaBroker.class);

  /** The running broker, once per JUnit run. */
  private static final class Running implements ExtensionContext.Store.CloseableResource {
    final KafkaBrokerProcess broker;

    Running(KafkaBrokerProcess broker) {
      this.broker = broker;
    }

    @Override
    public void close() throws InterruptedException, IOException {
      broker.close();
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
    return running.broker.bootstrap();
  }

  /**
   * The {@code bootstrap.servers} of the SASL listener ({@code SASL_PLAINTEXT}, {@code PLAIN}, user
   * {@value #SASL_USER}, password {@value #SASL_PASSWORD}).
   *
   * @return {@code 127.0.0.1:PORT}
   */
  public String saslBootstrap() {
    return running.broker.saslBootstrap();
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
    return running.broker.process();
  }

  private static Running start() {
    try {
      Path classpath =
          Path.of(System.getProperty("watukuy.kafka.broker.classpath", "target/kafka-broker"));
      return new Running(KafkaBrokerProcess.start(classpath, Path.of("target", "kafka-test")));
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the Kafka broker: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting the Kafka broker", e);
    }
  }

  /** A port nothing listens on now. */
  static int freePort() throws IOException {
    return KafkaBrokerProcess.freePort();
  }

  static String utf8(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
