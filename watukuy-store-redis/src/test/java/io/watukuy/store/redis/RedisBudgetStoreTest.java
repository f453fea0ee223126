package io.watukuy.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.watukuy.BudgetLimit;
import io.watukuy.ConfigException;
import io.watukuy.StoreException;
import io.watukuy.testing.RateBudgetStoreContractTest.Reference;
import io.watukuy.testing.SeededRandom;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * RedisBudgetStore beyond the contract: options, key layout, one script per take, exact range, a
 * server that goes away.
 */
class RedisBudgetStoreTest {
  static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

  @RegisterExtension static final TestRedis redis = TestRedis.local();

  String newPrefix() {
    return redis.newPrefix("budget");
  }

  RedisBudgetStore store(RedisLike client) {
    return RedisBudgetStore.builder(client).prefix(newPrefix()).build();
  }

  RedisBudgetStore store() {
    return store(redis.client());
  }

  /** Records every call and passes it on. */
  static final class Recording implements RedisLike {
    final RedisLike delegate;
    final List<String> calls = new ArrayList<>();

    Recording(RedisLike delegate) {
      this.delegate = delegate;
    }

    @Override
    public @Nullable Object evalsha(String sha1, List<String> keys, List<String> args) {
      calls.add("evalsha " + keys);
      return delegate.evalsha(sha1, keys, args);
    }

    @Override
    public @Nullable Object eval(String script, List<String> keys, List<String> args) {
      calls.add("eval " + keys);
      return delegate.eval(script, keys, args);
    }

    @Override
    public String endpoint() {
      return delegate.endpoint();
    }
  }

  // ---- options and key layout

  @Test
  void defaultsAreThePrefixWatukuyColonAndBuildingPerformsNoIo() {
    Recording recording = new Recording(redis.client());

    RedisBudgetStore store = RedisBudgetStore.open(recording);

    assertThat(store.prefix()).isEqualTo("watukuy:").isEqualTo(RedisBudgetStore.DEFAULT_PREFIX);
    assertThat(store.keyName("erp")).isEqualTo("watukuy:budget:erp");
    assertThat(store.endpoint()).isEqualTo("127.0.0.1:6379");
    assertThat(store).hasToString("RedisBudgetStore[127.0.0.1:6379, prefix=watukuy:]");
    assertThat(recording.calls).isEmpty();
  }

  @Test
  void aPrefixWithBracesOrBlanksIsAConfigErrorNamingIt() {
    assertThatThrownBy(() -> RedisBudgetStore.builder(redis.client()).prefix("a{b}:"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("prefix")
        .hasMessageContaining("'a{b}:'");
    assertThatThrownBy(() -> RedisBudgetStore.builder(redis.client()).prefix(""))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("prefix");
    assertThatThrownBy(() -> RedisBudgetStore.builder(redis.client()).prefix("a b"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'a b'");
  }

  @Test
  void aBucketIsOneHashOfTokensScaleAndTimeThatNeverExpires() {
    RedisBudgetStore store = store();
    // 100 per minute: 1/600 token per ms in lowest terms, so a token is 600 units.
    BudgetLimit limit = BudgetLimit.of(100, Duration.ofMinutes(1));

    assertThat(store.tryTake("erp", limit, 1, T0)).isZero();

    String key = store.prefix() + "budget:erp";
    assertThat(store.keyName("erp")).isEqualTo(key);
    assertThat(redis.keys(store.prefix())).containsExactly(key);
    assertThat(redis.commands().hgetall(key))
        .isEqualTo(
            Map.of("tokens", "59400", "at", Long.toString(T0.toEpochMilli()), "scale", "600"));
    assertThat(redis.commands().pttl(key)).isEqualTo(-1L);

    // A refused take writes nothing.
    BudgetLimit one = BudgetLimit.of(1, Duration.ofSeconds(10));
    assertThat(store.tryTake("crm", one, 1, T0)).isZero();
    Map<String, String> before = redis.commands().hgetall(store.keyName("crm"));
    assertThat(store.tryTake("crm", one, 1, T0.plusSeconds(3))).isEqualTo(Duration.ofSeconds(7));
    assertThat(redis.commands().hgetall(store.keyName("crm"))).isEqualTo(before);
  }

  @Test
  void aNameWithBracesIsStoredUnderExactlyThatName() {
    RedisBudgetStore store = store();
    BudgetLimit limit = BudgetLimit.of(2, Duration.ofSeconds(1));

    assertThat(store.tryTake("erp{eu}", limit, 2, T0)).isZero();
    assertThat(store.tryTake("erp", limit, 2, T0)).isZero();
    assertThat(store.tryTake("erp{eu}", limit, 1, T0)).isEqualTo(Duration.ofMillis(500));

    assertThat(redis.keys(store.prefix()))
        .containsExactlyInAnyOrder(
            store.prefix() + "budget:erp{eu}", store.prefix() + "budget:erp");
  }

  @Test
  void everyTakeIsOneScriptNamingItsOneKey() {
    Recording recording = new Recording(redis.client());
    RedisBudgetStore store = store(recording);
    BudgetLimit limit = BudgetLimit.of(2, Duration.ofSeconds(1));
    store.tryTake("erp", limit, 1, T0); // may load the script: EVALSHA, then EVAL on NOSCRIPT
    recording.calls.clear();

    store.tryTake("erp", limit, 1, T0);
    store.tryTake("erp", limit, 1, T0);
    store.tryTake("crm", limit, 2, T0);

    String erp = "[" + store.keyName("erp") + "]";
    String crm = "[" + store.keyName("crm") + "]";
    assertThat(recording.calls)
        .containsExactly("evalsha " + erp, "evalsha " + erp, "evalsha " + crm);
  }

  @Test
  void aServerThatForgotTheScriptIsSentItAgain() {
    Recording recording = new Recording(redis.client());
    RedisBudgetStore store = store(recording);
    BudgetLimit limit = BudgetLimit.of(3, Duration.ofSeconds(3));
    assertThat(store.tryTake("erp", limit, 1, T0)).isZero();

    redis.commands().scriptFlush();
    recording.calls.clear();

    assertThat(store.tryTake("erp", limit, 2, T0)).isZero();
    assertThat(store.tryTake("erp", limit, 1, T0)).isEqualTo(Duration.ofSeconds(1));
    String key = "[" + store.keyName("erp") + "]";
    assertThat(recording.calls).containsExactly("evalsha " + key, "eval " + key, "evalsha " + key);
  }

  @Test
  void aChangedLimitKeepsTheWholeTokensUpToTheNewBurst() {
    RedisBudgetStore store = store();
    BudgetLimit five = BudgetLimit.of(5, Duration.ofSeconds(1));
    BudgetLimit three = new BudgetLimit(3, Duration.ofSeconds(1), 4);

    assertThat(store.tryTake("erp", five, 3, T0)).isZero(); // leaves 2 of 5

    assertThat(store.tryTake("erp", three, 2, T0)).isZero(); // the 2 tokens carried over
    assertThat(store.tryTake("erp", three, 1, T0)).isEqualTo(Duration.ofMillis(334));
  }

  // ---- exact range

  @Test
  void aLimitBeyondTheExactRangeIsAConfigErrorNamingTheBudgetAndNothingIsSent() {
    Recording recording = new Recording(redis.client());
    RedisBudgetStore store = store(recording);
    BudgetLimit huge = new BudgetLimit(1, Duration.ofDays(36_500), Integer.MAX_VALUE);

    assertThatThrownBy(() -> store.tryTake("erp", huge, 1, T0))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            "budget erp: 1 requests per PT876000H with burst 2147483647 is beyond the exact range")
        .hasMessageContaining("2^53");
    assertThatThrownBy(
            () -> store.tryTake("erp", BudgetLimit.of(1, Duration.ofSeconds(1)), 1, Instant.MAX))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("budget erp: now");
    assertThat(recording.calls).isEmpty();
  }

  @Test
  void limitsAtTheEdgeOfTheExactRangeMatchTheReferenceModel() {
    RedisBudgetStore store = store();
    // burst * d + r just below 2^53 each: a token of 2^33 - 1 units and a burst of 2^20; and
    // 2^31 - 1 requests per 2^22 - 1 ms (coprime), burst 2^31 - 1.
    BudgetLimit slow = new BudgetLimit(1, Duration.ofMillis((1L << 33) - 1), 1 << 20);
    BudgetLimit fast =
        new BudgetLimit(Integer.MAX_VALUE, Duration.ofMillis((1L << 22) - 1), Integer.MAX_VALUE);
    assertThat(RedisBudgetStore.Rate.of("slow", slow))
        .isEqualTo(new RedisBudgetStore.Rate(1, (1L << 33) - 1));
    assertThat(RedisBudgetStore.Rate.of("fast", fast))
        .isEqualTo(new RedisBudgetStore.Rate(Integer.MAX_VALUE, (1L << 22) - 1));

    // Steps refill about as many tokens as a take wants on average, so both outcomes are common;
    // one take in ten wants up to the whole burst.
    record Case(BudgetLimit limit, long stepMs, int permits) {}
    Case slowCase = new Case(slow, 1L << 42, 512);
    for (Case c : List.of(slowCase, new Case(fast, 1L << 20, 1 << 29))) {
      BudgetLimit limit = c.limit();
      SeededRandom random = SeededRandom.of(53);
      Reference model = new Reference(limit);
      String name = "edge-" + limit.requests();
      long now = 0;
      int taken = 0;
      long longestWait = 0;
      for (int step = 0; step < 300; step++) {
        now += random.nextLong(c.stepMs());
        long at =
            random.nextInt(10) == 0 ? Math.max(0, now - random.nextLong(c.stepMs() / 4)) : now;
        int permits = 1 + random.nextInt(random.nextInt(10) == 0 ? limit.burst() : c.permits());
        Duration answer = store.tryTake(name, limit, permits, T0.plusMillis(at));
        assertThat(answer)
            .as("%s step %d: take %d at T0+%d ms", name, step, permits, at)
            .isEqualTo(model.tryTake(permits, at));
        taken += answer.isZero() ? 1 : 0;
        longestWait = Math.max(longestWait, answer.toMillis());
      }
      // Both outcomes occur; the slow limit's waits run into the 2^50s of milliseconds.
      assertThat(taken).isBetween(10, 290);
      assertThat(longestWait).isGreaterThan(c == slowCase ? 1L << 50 : 1_000_000);
    }
  }

  // ---- a server that goes away and comes back

  @Test
  void aStoppedServerFailsTakesNamingEndpointAndBudgetAndTheStoreRecoversWhenItReturns(
      @TempDir Path dir) throws Exception {
    try (PrivateRedis server = PrivateRedis.start(dir, false)) {
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
              .autoReconnect(true)
              .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
              .build());
      try (StatefulRedisConnection<String, String> connection = client.connect()) {
        RedisBudgetStore store = RedisBudgetStore.open(LettuceRedis.of(connection, uri));
        BudgetLimit limit = BudgetLimit.of(1, Duration.ofMinutes(1));
        assertThat(store.tryTake("erp", limit, 1, T0)).isZero();

        server.stop();

        assertThatThrownBy(() -> store.tryTake("erp", limit, 1, T0.plusSeconds(60)))
            .isInstanceOf(StoreException.class)
            .hasMessageStartingWith(
                "redis budget store "
                    + server.endpoint()
                    + " (prefix watukuy:): tryTake budget erp failed: ")
            .hasCauseInstanceOf(RuntimeException.class);

        server.start();

        // Lettuce reconnects by itself; the restarted server kept no data, so the bucket is new.
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        Duration answer = null;
        while (answer == null) {
          try {
            answer = store.tryTake("erp", limit, 1, T0);
          } catch (StoreException e) {
            if (System.nanoTime() > deadline) throw e;
            Thread.sleep(50);
          }
        }
        assertThat(answer).isZero();
        assertThat(store.tryTake("erp", limit, 1, T0)).isEqualTo(Duration.ofMinutes(1));
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
      }
    }
  }
}
