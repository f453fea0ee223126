package io.watukuy.sink.kafka;

import io.watukuy.ConfigException;
import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * What {@link KafkaSink#open()} checks before the first batch (docs/sinks.md, "Kafka"), with an
 * admin client and one bound on every wait (the producer's {@code max.block.ms}):
 *
 * <ul>
 *   <li>the brokers answer: otherwise an {@link IOException} naming the sink, and the engine opens
 *       it again at the next cycle;
 *   <li>they accept the credentials (TLS, SASL): otherwise a {@link ConfigException};
 *   <li>a constant topic exists, or the brokers create topics on first use ({@code
 *       auto.create.topics.enable}): otherwise a {@link ConfigException} naming the sink and the
 *       topic. A templated topic is checked per record instead ({@link TopicName}).
 * </ul>
 */
final class TopicCheck {
  private final KafkaSettings settings;
  private final String sink;

  TopicCheck(KafkaSettings settings, String sink) {
    this.settings = settings;
    this.sink = sink;
  }

  /**
   * Runs the checks.
   *
   * @throws ConfigException when the sink can never work as configured
   * @throws IOException when the brokers cannot be reached within the bound
   * @throws InterruptedException when interrupted while waiting
   */
  void run() throws IOException, InterruptedException {
    Duration timeout = settings.openTimeout();
    Admin admin;
    try {
      admin = Admin.create(settings.admin());
    } catch (KafkaException e) {
      throw new ConfigException(
          sink + ": the Kafka client refused its properties: " + scrub(e), null);
    }
    try {
      Collection<Node> nodes =
          wait(
              admin
                  .describeCluster(new DescribeClusterOptions().timeoutMs(millis(timeout)))
                  .nodes(),
              timeout);
      if (!settings.topic().isConstant()) return;
      String topic = settings.topic().toString();
      try {
        wait(
            admin
                .describeTopics(
                    List.of(topic), new DescribeTopicsOptions().timeoutMs(millis(timeout)))
                .allTopicNames(),
            timeout);
      } catch (MissingTopic e) {
        if (!autoCreates(admin, nodes, timeout))
          throw new ConfigException(
              sink
                  + ": topic '"
                  + topic
                  + "' does not exist and the brokers do not create topics"
                  + " (auto.create.topics.enable=false): create it, e.g. kafka-topics.sh"
                  + " --create --topic "
                  + topic,
              null);
      }
    } finally {
      admin.close(Duration.ofSeconds(1));
    }
  }

  private boolean autoCreates(Admin admin, Collection<Node> nodes, Duration timeout)
      throws IOException, InterruptedException {
    if (nodes.isEmpty()) return false;
    ConfigResource broker =
        new ConfigResource(
            ConfigResource.Type.BROKER, Integer.toString(nodes.iterator().next().id()));
    Map<ConfigResource, Config> configs;
    try {
      configs =
          wait(
              admin
                  .describeConfigs(
                      List.of(broker), new DescribeConfigsOptions().timeoutMs(millis(timeout)))
                  .all(),
              timeout);
    } catch (MissingTopic e) {
      return false;
    } catch (ConfigException e) {
      // Not allowed to read the broker's configuration: say the topic is missing, which is true.
      return false;
    }
    Config config = configs.get(broker);
    ConfigEntry entry = config == null ? null : config.get("auto.create.topics.enable");
    return entry != null && "true".equalsIgnoreCase(entry.value());
  }

  private <T> T wait(org.apache.kafka.common.KafkaFuture<T> future, Duration timeout)
      throws IOException, InterruptedException {
    try {
      // The admin call's own timeout ends it first; this bound is a second one, a little later.
      return future.get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof UnknownTopicOrPartitionException) throw new MissingTopic();
      if (cause instanceof AuthenticationException)
        throw new ConfigException(
            sink
                + ": the brokers refused the credentials (security/sasl/ssl properties): "
                + scrub(cause),
            null);
      if (cause instanceof AuthorizationException)
        throw new ConfigException(
            sink + ": the credentials may not use topic or cluster: " + scrub(cause), null);
      throw new IOException(
          sink + ": cannot reach the brokers at " + settings.bootstrap() + ": " + scrub(cause),
          null);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IOException(
          sink
              + ": the brokers at "
              + settings.bootstrap()
              + " did not answer within "
              + timeout.toMillis()
              + " ms",
          null);
    }
  }

  private String scrub(Throwable e) {
    return Secrets.scrub(
        e.getClass().getSimpleName() + " " + e.getMessage(), settings.properties());
  }

  private static int millis(Duration d) {
    return (int) Math.min(Integer.MAX_VALUE, d.toMillis());
  }

  /** The topic does not exist: the caller decides whether that is an error. */
  private static final class MissingTopic extends IOException {
    private static final long serialVersionUID = 1L;
  }
}
