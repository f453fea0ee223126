package io.watukuy.store.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A Lettuce connection to the machine's Redis at 127.0.0.1:6379: its own client, as one process
 * would have. {@link TestRedis} opens them, hands out key prefixes and deletes their keys ({@link
 * #deleteKeys}) afterwards, so test runs never see each other's data.
 */
final class LocalRedis implements AutoCloseable {
  static final String HOST = "127.0.0.1";
  static final int PORT = 6379;

  final RedisClient client;
  final StatefulRedisConnection<String, String> connection;
  final RedisLike redis;

  private LocalRedis(RedisClient client, StatefulRedisConnection<String, String> connection) {
    this.client = client;
    this.connection = connection;
    this.redis = LettuceRedis.of(connection, HOST + ":" + PORT);
  }

  static LocalRedis open() {
    RedisURI uri =
        RedisURI.builder()
            .withHost(HOST)
            .withPort(PORT)
            .withTimeout(Duration.ofSeconds(10))
            .build();
    RedisClient client = RedisClient.create(uri);
    client.setOptions(
        ClientOptions.builder()
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .build());
    try {
      return new LocalRedis(client, client.connect());
    } catch (RuntimeException e) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      throw new IllegalStateException(
          "the tests need Redis on "
              + HOST
              + ":"
              + PORT
              + " (redis-server --daemonize yes"
              + " --bind 127.0.0.1 --port 6379 --save \"\" --appendonly no): "
              + e.getMessage(),
          e);
    }
  }

  RedisCommands<String, String> commands() {
    return connection.sync();
  }

  RedisStore store(String prefix) {
    return RedisStore.builder(redis).prefix(prefix).build();
  }

  /** Every key under {@code prefix}, found by SCAN (the prefix holds no glob characters). */
  List<String> keys(String prefix) {
    List<String> keys = new ArrayList<>();
    ScanIterator.scan(commands(), ScanArgs.Builder.matches(prefix + "*").limit(1000))
        .forEachRemaining(keys::add);
    return keys;
  }

  void deleteKeys(String prefix) {
    List<String> keys = keys(prefix);
    for (int i = 0; i < keys.size(); i += 500) {
      commands().del(keys.subList(i, Math.min(keys.size(), i + 500)).toArray(new String[0]));
    }
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
