package io.watukuy.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.watukuy.ConfigException;
import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.HttpValidator;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StatePatch;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * RedisStore beyond the contract: key layout, exact payloads, ordering, and a server that goes
 * away.
 */
class RedisStoreTest {
  static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
  static final Duration TTL = Duration.ofSeconds(30);
  static final PollerKey KEY = PollerKey.of("orders");

  @RegisterExtension static final TestRedis redis = TestRedis.local();

  RedisStore store() {
    return redis.store(redis.newPrefix("store"));
  }

  // ---- options and key layout

  @Test
  void defaultsAreThePrefixWatukuyColonAndNoIo() {
    AtomicInteger calls = new AtomicInteger();
    RedisLike counting =
        new RedisLike() {
          @Override
          public Object evalsha(String sha1, List<String> keys, List<String> args) {
            calls.incrementAndGet();
            return List.of();
          }

          @Override
          public Object eval(String script, List<String> keys, List<String> args) {
            calls.incrementAndGet();
            return List.of();
          }

          @Override
          public String endpoint() {
            return "nowhere:1";
          }
        };

    RedisStore store = RedisStore.open(counting);
    store.migrate();
    store.close();
    store.close();

    assertThat(store.prefix()).isEqualTo("watukuy:").isEqualTo(RedisStore.DEFAULT_PREFIX);
    assertThat(store.endpoint()).isEqualTo("nowhere:1");
    assertThat(calls).hasValue(0);
    assertThatThrownBy(() -> store.getLease(KEY))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void prefixWithBracesWhitespaceOrNothingIsRejectedNamingTheValue() {
    for (String bad : List.of("", "a{b", "tag}", "two words", "tab\t")) {
      assertThatThrownBy(() -> RedisStore.builder(redis.client()).prefix(bad))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("prefix")
          .hasMessageContaining("'" + bad + "'");
    }
    assertThatThrownBy(() -> RedisStore.builder(redis.client()).prefix("x".repeat(201)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("1 to 200");
    assertThat(RedisStore.builder(redis.client()).prefix("svc:orders:").build().prefix())
        .isEqualTo("svc:orders:");
  }

  @Test
  void keyNamesFollowTheLayoutWithOneHashTagPerPollerKey() {
    RedisStore store = RedisStore.open(redis.client());

    assertThat(store.keyNames(PollerKey.of("orders", "eu")))
        .containsExactly(
            "watukuy:{orders|eu}:meta",
            "watukuy:{orders|eu}:state",
            "watukuy:{orders|eu}:items",
            "watukuy:{orders|eu}:items:ids",
            "watukuy:{orders|eu}:outbox",
            "watukuy:{orders|eu}:outbox:rows",
            "watukuy:{orders|eu}:outbox:attempts",
            "watukuy:{orders|eu}:outbox:errors",
            "watukuy:{orders|eu}:parked",
            "watukuy:{orders|eu}:parked:holds",
            "watukuy:{orders|eu}:held",
            "watukuy:{orders|eu}:validators",
            "watukuy:{orders|eu}:log",
            "watukuy:{orders|eu}:log:time",
            "watukuy:{orders|eu}:log:rows");
    assertThat(store.keyNames(PollerKey.of("orders"))).first().isEqualTo("watukuy:{orders|}:meta");
    assertThat(store.indexKeyName()).isEqualTo("watukuy:keys");
  }

  @Test
  void everyKeyOfAPollerKeyHashesToOneClusterSlot() {
    // The Redis Cluster slot function, checked against the values Redis publishes for it.
    assertThat(crc16("123456789")).isEqualTo(0x31C3);
    assertThat(slot("somekey")).isEqualTo(11058);
    assertThat(slot("foo{hash_tag}")).isEqualTo(2515);
    RedisStore store = RedisStore.builder(redis.client()).prefix("app:").build();

    for (PollerKey key :
        List.of(
            PollerKey.of("orders"),
            PollerKey.of("orders", "eu"),
            PollerKey.of("", ""),
            PollerKey.of("a{b}c", "}{"),
            PollerKey.of("ünï|cödé", "𝄞"))) {
      List<String> names = store.keyNames(key);
      String tag = hashTag(names.get(0));
      assertThat(tag).as("tag of %s", key).isNotEmpty().isEqualTo(KeyLayout.tag(key));
      assertThat(names)
          .as("slots of %s", key)
          .allSatisfy(n -> assertThat(slot(n)).isEqualTo(slot(tag)));
      assertThat(names).allSatisfy(n -> assertThat(n).startsWith("app:{" + tag + "}:"));
    }
  }

  @Test
  void oddNamesAreEscapedSoNoTwoPollerKeysShareATag() {
    List<PollerKey> keys =
        List.of(
            PollerKey.of("a|b"),
            PollerKey.of("a", "b"),
            PollerKey.of("a", "|b"),
            PollerKey.of("a|", "b"),
            PollerKey.of("a%7Cb"),
            PollerKey.of("a}", ""),
            PollerKey.of("a", "}"),
            PollerKey.of("%"),
            PollerKey.of("%25"),
            PollerKey.of(""),
            PollerKey.of("", "|"),
            PollerKey.of("{"));
    Set<String> tags = new HashSet<>();
    for (PollerKey k : keys) {
      String tag = KeyLayout.tag(k);
      assertThat(tags.add(tag)).as("tag %s of %s is unique", tag, k).isTrue();
      assertThat(tag).doesNotContain("{", "}");
      assertThat(KeyLayout.parseTag(tag)).isEqualTo(k);
    }
    assertThat(KeyLayout.tag(PollerKey.of("a|b"))).isEqualTo("a%7Cb|");
    assertThat(KeyLayout.tag(PollerKey.of("a", "b"))).isEqualTo("a|b");
    assertThat(KeyLayout.tag(PollerKey.of("100%", "{eu}"))).isEqualTo("100%25|%7Beu%7D");
  }

  @Test
  void oddNamesWorkEndToEndAndLandOnTheNamedKeys() {
    RedisStore store = store();
    PollerKey odd = PollerKey.of("we|ird{x}%", "p|q");
    PollerKey plain = PollerKey.of("we", "ird{x}%|p|q");
    Lease lease = store.acquireLease(odd, "a", TTL, T0).orElseThrow();
    store.commitPoll(
        odd,
        lease,
        batch(
            StatePatch.NONE.withLastSequence(1), List.of(item("1", "{}")), List.of(event(1, "{}"))),
        T0);
    store.saveStateUnfenced(plain, StatePatch.NONE, T0);

    assertThat(store.listKeys(null)).containsExactlyInAnyOrder(odd, plain);
    assertThat(store.listKeys("we|ird{x}%")).containsExactly(odd);
    assertThat(store.countPending(plain)).isZero();
    assertThat(redis.commands().hget(store.keyNames(odd).get(0), "owner")).isEqualTo("a");
    assertThat(redis.commands().exists(store.keyNames(odd).get(4))).isEqualTo(1);
    assertThat(redis.commands().smembers(store.indexKeyName()))
        .containsExactlyInAnyOrder("we%7Cird%7Bx%7D%25|p%7Cq", "we|ird%7Bx%7D%25%7Cp%7Cq");
  }

  // ---- payloads travel as opaque strings

  @Test
  void payloadsRoundTripByteForByte() {
    RedisStore store = store();
    String payload =
        "{\"id\":12345678901234567890123456789,\"price\":0.1000000000000000055511151231257827,"
            + "\"name\":\"Zoë e\u0301 ☃ 𝄞 👩‍👩‍👧 \\u0000 \u0000 \\\"quoted\\\"\",\"n\":-0.0,\"e\":1E400}";
    String identity = "ident-𝄞-é-\u0000-|-{x}";
    String orderingKey = "customer-👩‍👩‍👧";
    String envelope = "{\"id\":\"e\",\"data\":" + payload + "}";
    String cursor = "{\"after\":\"2026-03-01T10:00:00.123456789Z\",\"id\":98765432109876543210}";
    Lease lease = store.acquireLease(KEY, "a", TTL, T0).orElseThrow();
    ItemRow row = new ItemRow(identity, "v-𝄞", "f".repeat(64), 3, payload, orderingKey, T0);
    OutboxRow event = OutboxRow.pending(1, "id-😀", orderingKey, envelope, T0);
    ParkedRow invalid =
        new ParkedRow(
            "invalid-0123456789abcdef",
            ParkedKind.INVALID,
            null,
            null,
            orderingKey,
            null,
            payload,
            "{\"messages\":[\"/price: ≥ 0 𝄞\"]}",
            0,
            T0,
            null);

    store.commitPoll(
        KEY,
        lease,
        new CommitBatch(
            new StatePatch(Map.of("live", cursor), null, null, 1L),
            List.of(row),
            List.of(),
            List.of(event),
            true,
            List.of(invalid)),
        T0);
    store.setValidator(
        KEY,
        lease,
        "b".repeat(64),
        new HttpValidator("W/\"ü-𝄞\"", "Sun, 01 Mar 2026 10:00:00 GMT", T0));

    assertThat(store.loadVersions(KEY, List.of(identity)))
        .containsExactly(Map.entry(identity, row));
    assertThat(
            store
                .loadVersions(KEY, List.of(identity))
                .get(identity)
                .payload()
                .getBytes(StandardCharsets.UTF_8))
        .isEqualTo(payload.getBytes(StandardCharsets.UTF_8));
    assertThat(store.loadPending(KEY, 0, 10)).containsExactly(event);
    assertThat(store.readLog(KEY, LogRange.ALL, 10))
        .containsExactly(new LoggedEvent(1, envelope, T0));
    assertThat(store.listParked(KEY, null, 10)).containsExactly(invalid);
    assertThat(store.loadState(KEY).orElseThrow().cursors())
        .containsExactly(Map.entry("live", cursor));
    assertThat(store.getValidator(KEY, "b".repeat(64)).orElseThrow().etag())
        .isEqualTo("W/\"ü-𝄞\"");
    try (Stream<List<String>> s = store.streamIdentities(KEY, 10)) {
      assertThat(s.flatMap(List::stream)).containsExactly(identity);
    }
    // Stored as written: the payload's UTF-8 bytes appear verbatim in the item row, not re-encoded.
    byte[] stored =
        redis
            .commands()
            .hget(store.keyNames(KEY).get(2), identity)
            .getBytes(StandardCharsets.UTF_8);
    assertThat(new String(stored, StandardCharsets.UTF_8)).contains(payload);
  }

  @Test
  void sequencesAboveTwoToTheFiftyThreeKeepExactOrder() {
    RedisStore store = store();
    long base = 1L << 53;
    List<Long> seqs =
        List.of(base - 1, base, base + 1, base + 2, Long.MAX_VALUE - 1, Long.MAX_VALUE);
    Lease lease = store.acquireLease(KEY, "a", TTL, T0).orElseThrow();
    List<OutboxRow> events = new ArrayList<>();
    for (int i = seqs.size() - 1; i >= 0; i--)
      events.add(event(seqs.get(i), "{\"s\":" + seqs.get(i) + "}"));

    store.commitPoll(
        KEY,
        lease,
        new CommitBatch(
            StatePatch.NONE.withLastSequence(Long.MAX_VALUE),
            List.of(),
            List.of(),
            events,
            true,
            List.of()),
        T0);

    assertThat(store.loadPending(KEY, 0, 100))
        .extracting(OutboxRow::sequence)
        .containsExactlyElementsOf(seqs);
    assertThat(store.loadPending(KEY, base, 2))
        .extracting(OutboxRow::sequence)
        .containsExactly(base + 1, base + 2);
    assertThat(store.readLog(KEY, LogRange.after(base + 1), 100))
        .extracting(LoggedEvent::sequence)
        .containsExactly(base + 2, Long.MAX_VALUE - 1, Long.MAX_VALUE);
    store.ackEvents(KEY, lease, List.of(base + 1));
    store.recordAttempt(KEY, lease, base, "[]", T0.plusSeconds(1));
    assertThat(store.loadPending(KEY, base - 1, 2))
        .containsExactly(
            new OutboxRow(
                base, "evt-" + base, "ok", "{\"s\":" + base + "}", 1, T0.plusSeconds(1), "[]", T0),
            event(base + 2, "{\"s\":" + (base + 2) + "}"));
    assertThat(store.loadState(KEY).orElseThrow().lastSequence()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void negativeSequencesAreRefusedBeforeAnyWrite() {
    RedisStore store = store();
    Lease lease = store.acquireLease(KEY, "a", TTL, T0).orElseThrow();

    assertThatThrownBy(
            () ->
                store.commitPoll(
                    KEY, lease, batch(StatePatch.NONE, List.of(), List.of(event(-1, "{}"))), T0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
    assertThat(store.loadState(KEY)).isEmpty();
  }

  /**
   * The Lua script checks every sequence before it writes anything: a sequence already pending
   * (that nothing is written then is StoreContractTest's
   * commitReusingAPendingSequenceFailsAndWritesNothing) is named in the error, and a sequence that
   * appears twice in one batch fails the commit whole too.
   */
  @Test
  void aCommitRepeatingASequenceWithinItsBatchFailsAndWritesNothing() {
    RedisStore store = store();
    Lease lease = store.acquireLease(KEY, "a", TTL, T0).orElseThrow();
    store.commitPoll(
        KEY,
        lease,
        batch(StatePatch.NONE.withLastSequence(1), List.of(), List.of(event(1, "{}"))),
        T0);
    PollerState before = store.loadState(KEY).orElseThrow();

    assertThatThrownBy(
            () ->
                store.commitPoll(
                    KEY,
                    lease,
                    batch(
                        StatePatch.NONE.withLastSequence(2),
                        List.of(item("x", "{}")),
                        List.of(event(2, "{}"), event(1, "{\"again\":1}"))),
                    T0.plusSeconds(1)))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("sequence 1 is already pending")
        .hasMessageContaining("commitPoll orders");
    assertThatThrownBy(
            () ->
                store.commitPoll(
                    KEY,
                    lease,
                    batch(
                        StatePatch.NONE.withLastSequence(3),
                        List.of(),
                        List.of(event(3, "{}"), event(3, "{}"))),
                    T0.plusSeconds(1)))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("sequence 3 appears twice");

    assertThat(store.loadState(KEY)).contains(before);
    assertThat(store.countItems(KEY)).isZero();
    assertThat(store.loadPending(KEY, 0, 10)).containsExactly(event(1, "{}"));
  }

  @Test
  void aKeyHeldByTwoParkedRowsStaysHeldUntilBothAreGone() {
    RedisStore store = store();
    Lease lease = store.acquireLease(KEY, "a", TTL, T0).orElseThrow();
    store.commitPoll(
        KEY,
        lease,
        batch(
            StatePatch.NONE.withLastSequence(3),
            List.of(),
            List.of(event(1, "{}"), event(2, "{}"), event(3, "{}"))),
        T0);
    store.parkEvent(KEY, lease, poison(1, "customer-1", T0.plusSeconds(1)));
    store.parkEvent(KEY, lease, poison(2, "customer-1", T0.plusSeconds(2)));
    store.parkEvent(KEY, lease, poison(3, "customer-3", T0.plusSeconds(3)));

    assertThat(store.heldKeys(KEY)).containsExactlyInAnyOrder("customer-1", "customer-3");
    assertThat(store.discardParked(KEY, List.of("1", "3", "3"))).isEqualTo(2);
    assertThat(store.heldKeys(KEY)).containsExactly("customer-1");
    // Parking row 2 again without a hold releases what its earlier version held.
    store.parkEvent(
        KEY,
        lease,
        new ParkedRow(
            "2",
            ParkedKind.POISON,
            2L,
            "evt-2",
            "ok",
            "{}",
            null,
            "{}",
            3,
            T0.plusSeconds(4),
            null));
    assertThat(store.heldKeys(KEY)).isEmpty();
    assertThat(store.retryParked(KEY, List.of("2"))).isEqualTo(1);
    // Retried with its outbox commit time, not its parking time, though it was parked twice.
    assertThat(store.loadPending(KEY, 0, 10)).containsExactly(event(2, "{}"));
  }

  @Test
  void retryOfAPoisonRowWithoutItsEventIsRefusedAndChangesNothing() {
    RedisStore store = store();
    Lease lease = store.acquireLease(KEY, "a", TTL, T0).orElseThrow();
    ParkedRow broken =
        new ParkedRow("9", ParkedKind.POISON, 9L, "evt-9", "ok", null, null, "{}", 3, T0, "ok");
    store.commitPoll(
        KEY,
        lease,
        new CommitBatch(
            StatePatch.NONE,
            List.of(),
            List.of(),
            List.of(),
            false,
            List.of(broken, invalidRow("inv-1"))),
        T0);

    assertThatThrownBy(() -> store.retryParked(KEY, List.of("inv-1", "9")))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("parked poison row 9");
    assertThat(store.countParked(KEY)).isEqualTo(2);
    assertThat(store.heldKeys(KEY)).containsExactly("ok");
  }

  @Test
  void deletedKeyLeavesTheIndexAndKeepsOnlyItsEpochCounter() {
    RedisStore store = store();
    Lease lease = store.acquireLease(KEY, "a", TTL, T0).orElseThrow();
    store.commitPoll(
        KEY,
        lease,
        new CommitBatch(
            StatePatch.NONE.withLastSequence(1),
            List.of(item("1", "{}")),
            List.of(),
            List.of(event(1, "{}")),
            true,
            List.of(invalidRow("inv-1"))),
        T0);
    store.setValidator(KEY, lease, "c".repeat(64), new HttpValidator("\"e\"", null, T0));

    store.deleteKey(KEY);

    assertThat(store.listKeys(null)).isEmpty();
    assertThat(redis.commands().smembers(store.indexKeyName())).isEmpty();
    assertThat(redis.keys(store.prefix())).containsExactly(store.keyNames(KEY).get(0));
    assertThat(redis.commands().hgetall(store.keyNames(KEY).get(0)))
        .containsExactly(Map.entry("counter", "1"));
    assertThat(store.acquireLease(KEY, "b", TTL, T0)).map(Lease::epoch).contains(2L);
  }

  @Test
  void concurrentAcquisitionsThroughTwoConnectionsGrantExactlyOneLease() throws Exception {
    String prefix = redis.newPrefix("race");
    LocalRedis second = redis.connect();
    List<RedisStore> stores = List.of(redis.store(prefix), second.store(prefix));
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Optional<Lease>>> results = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        RedisStore s = stores.get(i % 2);
        String owner = "instance-" + i;
        results.add(
            pool.submit(
                () -> {
                  go.await();
                  return s.acquireLease(KEY, owner, TTL, T0);
                }));
      }
      go.countDown();
      List<Lease> granted = new ArrayList<>();
      for (var r : results) r.get(10, TimeUnit.SECONDS).ifPresent(granted::add);

      assertThat(granted).singleElement().satisfies(l -> assertThat(l.epoch()).isEqualTo(1));
      assertThat(stores.get(1).getLease(KEY)).contains(granted.get(0));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aFlushedScriptCacheIsReloadedOnTheNextCall() {
    RedisStore store = store();
    Lease lease = store.acquireLease(KEY, "a", TTL, T0).orElseThrow();

    redis.commands().scriptFlush();

    assertThat(store.getLease(KEY)).contains(lease);
    store.saveState(KEY, lease, StatePatch.NONE.withLastSequence(4), T0);
    assertThat(store.loadState(KEY).orElseThrow().lastSequence()).isEqualTo(4);
  }

  @Test
  void closeNeverClosesTheConnection() {
    RedisStore store = store();
    store.close();

    assertThat(redis.connection().connection.isOpen()).isTrue();
    assertThat(redis.commands().ping()).isEqualTo("PONG");
  }

  // ---- a server that goes away and comes back

  @Test
  void aStoppedServerFailsCallsNamingEndpointAndOperationAndTheStoreRecoversWhenItReturns(
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
        RedisStore store = RedisStore.open(LettuceRedis.of(connection, uri));
        assertThat(store.endpoint()).isEqualTo(server.endpoint());
        Lease lease = store.acquireLease(KEY, "a", TTL, T0).orElseThrow();
        store.commitPoll(
            KEY,
            lease,
            batch(StatePatch.NONE.withLastSequence(1), List.of(), List.of(event(1, "{}"))),
            T0);

        server.stop();

        assertThatThrownBy(
                () ->
                    store.commitPoll(
                        KEY,
                        lease,
                        batch(
                            StatePatch.NONE.withLastSequence(2),
                            List.of(),
                            List.of(event(2, "{}"))),
                        T0))
            .isInstanceOf(StoreException.class)
            .hasMessageStartingWith(
                "redis store "
                    + server.endpoint()
                    + " (prefix watukuy:): commitPoll orders failed: ")
            .hasCauseInstanceOf(RuntimeException.class);
        assertThatThrownBy(() -> store.loadPending(KEY, 0, 10))
            .isInstanceOf(StoreException.class)
            .hasMessageContaining(server.endpoint())
            .hasMessageContaining("loadPending orders");

        server.start();

        // Lettuce reconnects by itself; the store keeps no connection state of its own.
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        Lease again = null;
        while (again == null) {
          try {
            // The restarted server kept no data, so the key is new: epoch 1 again.
            again = store.acquireLease(KEY, "a", TTL, T0).orElseThrow();
          } catch (StoreException e) {
            if (System.nanoTime() > deadline) throw e;
            Thread.sleep(50);
          }
        }
        assertThat(again.epoch()).isEqualTo(1);
        store.commitPoll(
            KEY,
            again,
            batch(StatePatch.NONE.withLastSequence(2), List.of(), List.of(event(2, "{}"))),
            T0);
        assertThat(store.loadPending(KEY, 0, 10)).containsExactly(event(2, "{}"));
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
      }
    }
  }

  // ---- fixtures

  static CommitBatch batch(StatePatch patch, List<ItemRow> items, List<OutboxRow> events) {
    return new CommitBatch(patch, items, List.of(), events, false, List.of());
  }

  static ItemRow item(String identity, String payload) {
    return new ItemRow(identity, "v1", "a".repeat(64), 1, payload, "ok-" + identity, T0);
  }

  static OutboxRow event(long seq, String envelope) {
    return OutboxRow.pending(seq, "evt-" + seq, "ok", envelope, T0);
  }

  static ParkedRow poison(long seq, String hold, Instant at) {
    return new ParkedRow(
        Long.toString(seq),
        ParkedKind.POISON,
        seq,
        "evt-" + seq,
        "ok",
        "{}",
        null,
        "{\"name\":\"X\"}",
        3,
        at,
        hold);
  }

  static ParkedRow invalidRow(String id) {
    return new ParkedRow(
        id,
        ParkedKind.INVALID,
        null,
        null,
        "ok-" + id,
        null,
        "{\"id\":1}",
        "{\"messages\":[]}",
        0,
        T0,
        null);
  }

  // ---- the Redis Cluster key slot (CRC16/XMODEM of the hash tag, modulo 16384)

  static String hashTag(String key) {
    int open = key.indexOf('{');
    if (open >= 0) {
      int close = key.indexOf('}', open + 1);
      if (close > open + 1) return key.substring(open + 1, close);
    }
    return key;
  }

  static int slot(String key) {
    return crc16(hashTag(key)) & 16383;
  }

  static int crc16(String s) {
    int crc = 0;
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      crc ^= (b & 0xff) << 8;
      for (int i = 0; i < 8; i++)
        crc = (crc & 0x8000) != 0 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
    return crc;
  }
}
