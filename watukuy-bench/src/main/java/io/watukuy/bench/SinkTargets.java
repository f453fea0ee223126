package io.watukuy.bench;

import io.watukuy.testing.KafkaBrokerProcess;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The sinks of {@code bench/run.sh sinks --sinks LIST}, as {@link SinkTarget}s, and the Kafka
 * broker the run starts when it is given none.
 */
final class SinkTargets {
  /** Every name {@code --sinks} takes, in run order. */
  static final List<String> NAMES =
      List.of("kafka", "table", "rabbitmq", "nats", "webhook", "file");

  /** The rows of {@code table}: PostgreSQL and SQLite, without and with {@code sameDatabase}. */
  static final List<String> TABLES =
      List.of("table-postgres", "table-postgres-same", "table-sqlite", "table-sqlite-same");

  private SinkTargets() {}

  /**
   * Where the servers are.
   *
   * @param postgresUrl PostgreSQL, for the table sink and the stores it shares
   * @param rabbitUri RabbitMQ
   * @param natsUrl NATS with JetStream
   * @param kafkaBootstrap a running Kafka broker, or null to start one from {@code kafkaClasspath}
   * @param kafkaClasspath the broker's jars ({@code watukuy-sink-kafka/target/kafka-broker})
   */
  record Servers(
      String postgresUrl,
      String rabbitUri,
      String natsUrl,
      @Nullable String kafkaBootstrap,
      Path kafkaClasspath) {}

  /**
   * Parses {@code --sinks}: names of {@link #NAMES} (and of {@link #TABLES}, one table row each).
   *
   * @param list comma-separated
   * @return the rows to run, in the order given, {@code table} expanded
   * @throws IllegalArgumentException for an unknown or missing name
   */
  static List<String> parse(String list) {
    Set<String> out = new LinkedHashSet<>();
    for (String part : list.split(",")) {
      String name = part.trim();
      if (name.isEmpty()) continue;
      if (name.equals("table")) out.addAll(TABLES);
      else if (NAMES.contains(name) || TABLES.contains(name)) out.add(name);
      else
        throw new IllegalArgumentException(
            "--sinks: unknown sink '"
                + name
                + "'; expected some of "
                + String.join(",", NAMES)
                + " (or one of "
                + String.join(",", TABLES)
                + ")");
    }
    if (out.isEmpty())
      throw new IllegalArgumentException(
          "--sinks needs at least one of " + String.join(",", NAMES));
    return new ArrayList<>(out);
  }

  /**
   * Starts a Kafka broker when {@code names} has {@code kafka} and no broker was given.
   *
   * @return the broker, or null when none was started; the caller closes it
   */
  static @Nullable KafkaBrokerProcess broker(List<String> names, Servers servers) throws Exception {
    if (!names.contains("kafka") || servers.kafkaBootstrap() != null) return null;
    return KafkaBrokerProcess.start(
        servers.kafkaClasspath(),
        Path.of(System.getProperty("java.io.tmpdir"), "watukuy-bench-kafka"));
  }

  /**
   * The target of one row.
   *
   * @param name a name of {@link #parse}
   * @param servers the servers
   * @param bootstrap the Kafka broker's bootstrap, for {@code kafka}
   * @return the target; the caller closes it
   */
  static SinkTarget open(String name, Servers servers, @Nullable String bootstrap)
      throws Exception {
    return switch (name) {
      case "kafka" -> new KafkaTarget(java.util.Objects.requireNonNull(bootstrap, "bootstrap"));
      case "table-postgres" -> new TableTarget("postgres", false, servers.postgresUrl());
      case "table-postgres-same" -> new TableTarget("postgres", true, servers.postgresUrl());
      case "table-sqlite" -> new TableTarget("sqlite", false, servers.postgresUrl());
      case "table-sqlite-same" -> new TableTarget("sqlite", true, servers.postgresUrl());
      case "rabbitmq" -> new RabbitMqTarget(servers.rabbitUri());
      case "nats" -> new NatsTarget(servers.natsUrl());
      case "webhook" -> new WebhookTarget();
      case "file" -> new FileTarget();
      default -> throw new IllegalArgumentException("unknown sink '" + name + "'");
    };
  }
}
