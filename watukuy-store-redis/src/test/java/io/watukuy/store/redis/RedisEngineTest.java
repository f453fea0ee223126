package io.watukuy.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import io.watukuy.TickReport;
import io.watukuy.Watukuy;
import io.watukuy.spi.StateStore;
import io.watukuy.testing.StoreEngineTest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine scenarios on RedisStore: a key prefix per test, every client a store on a connection
 * of its own. Beyond them: a server outage.
 */
class RedisEngineTest extends StoreEngineTest {
  @RegisterExtension static final TestRedis redis = TestRedis.local();

  private String prefix;

  @BeforeEach
  void newPrefix() {
    prefix = redis.newPrefix("engine");
  }

  @Override
  protected StateStore openStore() {
    return redis.connect().store(prefix);
  }

  @Test
  void aServerOutageFailsTheCycleWithAStoreErrorAndTheEngineRecoversWhenItReturns(@TempDir Path dir)
      throws Exception {
    try (PrivateRedis server = PrivateRedis.start(dir, true)) {
      RedisURI uri =
          RedisURI.builder()
              .withHost("127.0.0.1")
              .withPort(server.port)
              .withTimeout(Duration.ofSeconds(2))
              .build();
      ClientResources resources =
          ClientResources.builder().reconnectDelay(Delay.constant(Duration.ofMillis(50))).build();
      RedisClient client = RedisClient.create(resources, uri);
      client.setOptions(
          ClientOptions.builder()
              .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
              .build());
      try (StatefulRedisConnection<String, String> connection = client.connect()) {
        RedisStore store = RedisStore.open(LettuceRedis.of(connection, uri));
        Poller<JsonNode> p = orders();
        List<String> delivered = new ArrayList<>();
        Watukuy w =
            engine(store, "only", p)
                .on(p, e -> delivered.add(e.identity() + ":" + e.type().wire()));
        for (int i = 1; i <= 3; i++) api().put("o" + i, Map.of("n", i));
        w.tick();
        assertThat(delivered).containsExactly("o1:created", "o2:created", "o3:created");

        server.stop();
        clock().advance(INTERVAL);
        api().put("o2", Map.of("n", 20));
        api().put("o4", Map.of("n", 4));
        TickReport down = w.tick();

        KeyReport failed = down.key(PollerKey.of("orders")).orElseThrow();
        assertThat(failed.error())
            .isInstanceOf(StoreException.class)
            .hasMessageContaining("redis store " + server.endpoint());
        assertThat(delivered).hasSize(3);

        server.start();
        // The backoff and the lease both run on the virtual clock; the reconnect takes real time.
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (!delivered.contains("o4:created")) {
          clock().advance(Duration.ofMinutes(1));
          TickReport report = w.tick();
          if (System.nanoTime() > deadline) {
            throw new AssertionError("no recovery within 15 s; last report " + report);
          }
          if (report.failed()) Thread.sleep(50);
        }

        assertThat(delivered)
            .containsExactly("o1:created", "o2:created", "o3:created", "o2:updated", "o4:created");
        assertThat(store.countPending(PollerKey.of("orders"))).isZero();
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
      }
    }
  }
}
