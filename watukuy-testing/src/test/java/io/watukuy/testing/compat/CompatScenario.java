package io.watukuy.testing.compat;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.watukuy.ChangeEvent;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.EventLog;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Retain;
import io.watukuy.Schedule;
import io.watukuy.ScheduleState;
import io.watukuy.TickReport;
import io.watukuy.Watukuy;
import io.watukuy.spi.HttpValidator;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StateStore;
import io.watukuy.testing.FakeApi;
import io.watukuy.testing.SeededRandom;
import io.watukuy.testing.VirtualClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The world of the compatibility fixtures in each SQL store module's {@code
 * src/test/resources/compat}: the vendor, the three pollers and the engine settings of the
 * generator that wrote them at commit 0e79de2 ({@code compat/Generator.java.txt}), replayed here so
 * that the current store can poll on where the old one stopped. One class for the SQLite and the
 * PostgreSQL fixture (they were written by the same generator); it reaches the store modules' tests
 * through watukuy-testing's test jar. Keep it and the generator in step.
 *
 * <p>{@link #check(StateStore)} is the whole check: the fixture reads back, the pending events are
 * delivered once, the new vendor changes are the only new events, a parked event comes back once.
 */
public final class CompatScenario {
  public static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
  public static final Duration MIN = Duration.ofSeconds(30);
  public static final Schedule FIXED = Schedule.every(MIN).withAdaptive(false).withJitter(0);
  public static final ObjectMapper JSON = new ObjectMapper();

  public static final PollerKey ORDERS = PollerKey.of("orders");
  public static final PollerKey STOCK_EU = PollerKey.of("stock", "eu");
  public static final PollerKey STOCK_US = PollerKey.of("stock", "us");
  public static final PollerKey CATALOG = PollerKey.of("catalog");

  /** The ETag the fixture's validator holds: the catalog as it was from round 3 on. */
  public static final String FIXTURE_ETAG = "\"4df60f446e598a6f\"";

  /** The pending outbox rows of the fixture, which must be delivered exactly once. */
  public static final String PENDING_O6_CREATED =
      "710703cb9ec07d5092ac982db25cf1ee706ca38612162b54b2863830bb0fc239";

  public static final String PENDING_S1_UPDATED =
      "6656e872fd87212443731391f684ccd6a26051080b0471668eb86aa4c1a14604";
  public static final String PENDING_S5_CREATED =
      "cdc60a69a0ae7148786ef084f10dd19a7fc82d89434248e7a3445b13c2fdb6bd";

  /** The poison event parked in the fixture after three refused attempts. */
  public static final String PARKED_O3_CREATED =
      "60f22320e4ddaee65ad966358fd9a4e9ea4ea40832df6a86db79adbc1d8432e4";

  /** The 16 events the fixture's handlers acknowledged: none may be delivered again. */
  public static final List<String> ACKED_IN_FIXTURE =
      List.of(
          "a075b1271c495a75eccbe328cab6ca8b475bfdeed68309a7faa23c33ee249e3b", // orders o1 created
          "1a11d5131c8144314f55f620e4e3baa733e98103bb128e9dc6d50b21223fdebc", // orders o2 created
          "6baa2c65877e565b82336d3d6bff2526cdd7a9600efd5a5a944133a3f27ad592", // orders o5 created
          "403cb1498228a3e5bca41f91a97b2396d8958ff62cf244d16ea20a7b633ce743", // orders o2 updated
          "f628451f2579bca72eea57a838f455a992a43682671a0015122fcfdc172ed295", // orders o1 updated
          "91846c81245e5f160d6229197ecf7fe133cd6603d868b61d66d302ac0a3abd1b", // stock/eu s1 created
          "5d5ca8502cb53544c5006d51b62d752a46e75c554eb7260c788528e8139eda39", // stock/eu s2 created
          "ecd2b9ace9d91bd5951d8a888a4d0276b933dbf52deb9910227f15a7a00f07a7", // stock/us s3 created
          "96482c070d0b8c94411ae67ff56575546856c8664ddee04c3605770646a51702", // stock/us s3 updated
          "fff403eed66adda931de4d05132888cd6b05025007ef96087d6c487d619244b9", // stock/us s4 created
          "5feba91c6c20d70651871768af33b753c606f1456adb176b858ffcfdec44a595", // catalog c1 created
          "664607066e38078d9d3d9ce5977d4920d7ae4cc47c45bd36cf9371686cface11", // catalog c2 created
          "b644e9e13f0fb00def7cfed7ad307f609a12b36a0bbb50c8f579e04cbe1e136e", // catalog c3 created
          "d7c674b0e1fde0aa321cd556406bb20e18ae5ae88173c9c4115d60ec8b925003", // catalog c4 created
          "47bac36d93b168a10ade65b27349001025faf5cefd2a83335ec44daa5a43173c", // catalog c2 updated
          "7f46aa10904888f703fe28c266cc2a488de0ac9e366a3ad523231c0491cd5521"); // catalog c4 deleted

  public final int port;
  public final VirtualClock clock = VirtualClock.at(T0);
  public final FakeApi ordersApi = new FakeApi(clock);
  public final FakeApi stockApi = new FakeApi(clock);
  public final FakeApi catalogApi = new FakeApi(clock);

  /** Each catalog request, as "If-None-Match value -> status" ("-" when none was sent). */
  public final List<String> http = new CopyOnWriteArrayList<>();

  /** Every delivered event, as "key identity:type #sequence attempt n", in delivery order. */
  public final List<String> delivered = new ArrayList<>();

  /** The ids of every delivered event, in delivery order. */
  public final List<String> deliveredIds = new ArrayList<>();

  public final Map<String, ChangeEvent<JsonNode>> byId = new LinkedHashMap<>();

  /**
   * @param port the fixed port of the catalog listing: its URL is part of the stored validator's
   *     key, so it must be the one the fixture was written with
   */
  public CompatScenario(int port) {
    this.port = port;
  }

  /** Round k (1-based) starts at T0 + (k - 1) * 30 s; rounds 1 to 4 wrote the fixture. */
  public static Instant roundAt(int round) {
    return T0.plus(MIN.multipliedBy(round - 1));
  }

  /**
   * The vendor's changes at the start of each round. Rounds 1 to 4 are the generator's, verbatim
   * (FakeApi stamps updatedAt and counts rev, so the vendor is the same only if they are replayed
   * in order at the same instants); round 6 brings the new changes, rounds 5 and 7 none.
   */
  public void vendor(int round) {
    switch (round) {
      case 1 -> {
        ordersApi.put("o1", Map.of("price", 10));
        ordersApi.put("o2", Map.of("price", 20));
        ordersApi.put("o3", Map.of("price", 30));
        ordersApi.put("o4", Map.of("price", -5)); // fails the validator: parked as invalid
        ordersApi.put("o5", Map.of("price", 50));
        stockApi.put("s1", Map.of("partition", "eu", "qty", 5));
        stockApi.put("s2", Map.of("partition", "eu", "qty", 7));
        stockApi.put("s3", Map.of("partition", "us", "qty", 1));
        catalogApi.put("c1", Map.of("title", "chair"));
        catalogApi.put("c2", Map.of("title", "desk"));
        catalogApi.put("c3", Map.of("title", "lamp"));
        catalogApi.put("c4", Map.of("title", "shelf"));
      }
      case 2 -> {
        ordersApi.put("o2", Map.of("price", 21));
        stockApi.put("s3", Map.of("partition", "us", "qty", 2));
        stockApi.put("s4", Map.of("partition", "us", "qty", 4));
      }
      case 3 -> {
        ordersApi.put("o1", Map.of("price", 11));
        catalogApi.put("c2", Map.of("title", "standing desk"));
        catalogApi.delete("c4");
      }
      case 4 -> {
        ordersApi.put("o6", Map.of("price", 60));
        stockApi.put("s5", Map.of("partition", "eu", "qty", 9));
        stockApi.put("s1", Map.of("partition", "eu", "qty", 6));
      }
      case 5, 7 -> {}
      case 6 -> {
        ordersApi.put("o2", Map.of("price", 22));
        ordersApi.put("o7", Map.of("price", 70));
        stockApi.put("s4", Map.of("partition", "us", "qty", 3));
        stockApi.put("s6", Map.of("partition", "eu", "qty", 2));
        catalogApi.put("c1", Map.of("title", "armchair"));
        catalogApi.put("c5", Map.of("title", "rug"));
        catalogApi.delete("c3");
      }
      default -> throw new IllegalArgumentException("round " + round);
    }
  }

  /** The vendor as it stood when the fixture was written: rounds 1 to 4, each at its instant. */
  public void replayFixtureVendor() {
    for (int round = 1; round <= 4; round++) {
      clock.advanceTo(roundAt(round));
      vendor(round);
    }
  }

  public Poller<JsonNode> orders() {
    return Poller.builder("orders", JsonNode.class)
        .identity(n -> n.get("id"))
        .version(n -> n.get("updatedAt").asText() + "#" + n.get("rev").asText())
        .validator(
            n ->
                n.path("price").asInt() < 0
                    ? List.of("price must be >= 0, but was " + n.path("price").asInt())
                    : List.of())
        .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
        .fetch(ordersApi.timestampFetcher(3))
        .log(EventLog.keep(Duration.ofDays(7)))
        .schedule(FIXED)
        .build();
  }

  public Poller<JsonNode> stock() {
    return Poller.builder("stock", JsonNode.class)
        .identity(n -> n.get("id"))
        .partitions(List.of("eu", "us"))
        .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
        .fetch(stockApi.partitionedTimestampFetcher(2))
        .schedule(FIXED)
        .build();
  }

  public String catalogUrl() {
    return "http://127.0.0.1:" + port + "/catalog";
  }

  public Poller<JsonNode> catalog() {
    String url = catalogUrl();
    return Poller.builder("catalog", JsonNode.class)
        .identity(n -> n.get("id"))
        .cursor(Cursors.snapshotDiff())
        .retain(Retain.PAYLOAD)
        .fetch(
            ctx -> {
              JsonNode body = ctx.http().get(url + "?page=" + ctx.page()).json();
              List<JsonNode> items = new ArrayList<>();
              body.get("items").forEach(items::add);
              return Page.<JsonNode>of(items).withHasMore(body.get("hasMore").asBoolean());
            })
        .schedule(FIXED)
        .build();
  }

  /**
   * The catalog listing over HTTP on 127.0.0.1 and the fixture's port: pages of up to 10 items, a
   * strong ETag of the body (the first 16 hex digits of its SHA-256), 304 on a matching
   * If-None-Match.
   */
  public HttpServer serve() {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
      server.createContext("/catalog", this::serveCatalog);
      server.start();
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(
          "the catalog listing needs 127.0.0.1:"
              + port
              + ", the port the fixture's validator was stored under",
          e);
    }
  }

  private synchronized void serveCatalog(HttpExchange ex) throws IOException {
    int page = Integer.parseInt(ex.getRequestURI().getQuery().replace("page=", ""));
    List<JsonNode> all = catalogApi.items();
    int from = Math.min(all.size(), (page - 1) * 10);
    int to = Math.min(all.size(), from + 10);
    ObjectNode body = JSON.createObjectNode();
    ArrayNode items = body.putArray("items");
    all.subList(from, to).forEach(items::add);
    body.put("hasMore", to < all.size());
    byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
    String etag = "\"" + sha256(bytes).substring(0, 16) + "\"";
    String inm = ex.getRequestHeaders().getFirst("If-None-Match");
    ex.getResponseHeaders().add("ETag", etag);
    if (etag.equals(inm)) {
      http.add(inm + " -> 304");
      ex.sendResponseHeaders(304, -1);
      ex.close();
      return;
    }
    http.add((inm == null ? "-" : inm) + " -> 200 " + etag);
    ex.getResponseHeaders().add("Content-Type", "application/json");
    ex.sendResponseHeaders(200, bytes.length);
    ex.getResponseBody().write(bytes);
    ex.close();
  }

  public static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** An engine as the generator built them: virtual clock, seeded random, handlers in line. */
  public Watukuy engine(StateStore store) {
    Poller<JsonNode> orders = orders();
    Poller<JsonNode> stock = stock();
    Poller<JsonNode> catalog = catalog();
    Watukuy w =
        Watukuy.builder()
            .store(store)
            .time(clock)
            .random(SeededRandom.of(7))
            .instanceId("compat-current")
            .executor(Runnable::run)
            .handlerExecutor(Runnable::run)
            .delivery(new DeliveryOptions(1, 100))
            .poller(orders)
            .poller(stock)
            .poller(catalog)
            .build();
    return w.on(orders, this::record).on(stock, this::record).on(catalog, this::record);
  }

  private synchronized void record(ChangeEvent<JsonNode> e) {
    delivered.add(
        e.key()
            + " "
            + e.identity()
            + ":"
            + e.type().wire()
            + " #"
            + e.sequence()
            + " attempt "
            + e.attempt());
    deliveredIds.add(e.id());
    byId.put(e.id(), e);
  }

  /** Moves to the round's instant, makes its vendor changes, ticks once. */
  public TickReport round(Watukuy w, int round) {
    clock.advanceTo(roundAt(round));
    vendor(round);
    delivered.clear();
    http.clear();
    TickReport report = w.tick();
    assertThat(report.failed()).as("tick of round %d: %s", round, report).isFalse();
    return report;
  }

  /**
   * Everything the generator left, read through the current store before any engine runs: keys,
   * items, cursors, schedule, the pending outbox, the parked rows, the validator, the event log,
   * and no lease.
   */
  public void assertFixtureReadsBack(StateStore store) {
    assertThat(store.listKeys(null)).containsExactlyInAnyOrder(ORDERS, STOCK_EU, STOCK_US, CATALOG);
    assertThat(store.countItems(ORDERS)).isEqualTo(5); // o1 o2 o3 o5 o6; o4 is parked
    assertThat(store.countItems(STOCK_EU)).isEqualTo(3);
    assertThat(store.countItems(STOCK_US)).isEqualTo(2);
    assertThat(store.countItems(CATALOG)).isEqualTo(3);
    assertThat(store.loadVersions(ORDERS, List.of("o1", "o6")))
        .extractingByKeys("o1", "o6")
        .extracting(r -> r.version())
        .containsExactly("2026-03-01T10:01:00.000Z#2", "2026-03-01T10:01:30.000Z#1");
    for (PollerKey key : List.of(ORDERS, STOCK_EU, STOCK_US, CATALOG)) {
      assertThat(store.getLease(key)).as("lease of %s", key).isEmpty();
    }

    PollerState orders = store.loadState(ORDERS).orElseThrow();
    assertThat(orders.cursors())
        .containsExactly(
            Map.entry("live", "{\"value\":\"2026-03-01T10:01:30.000Z\",\"tieBreak\":\"o6\"}"));
    assertThat(orders.lastSequence()).isEqualTo(7);
    assertThat(orders.schedule().state()).isEqualTo(ScheduleState.Status.IDLE);
    assertThat(orders.schedule().nextDueAt()).isEqualTo(roundAt(5));
    assertThat(orders.schedule().intervalMs()).isEqualTo(30_000);
    assertThat(store.loadState(STOCK_EU).orElseThrow().lastSequence()).isEqualTo(4);
    assertThat(store.loadState(STOCK_US).orElseThrow().cursors().get("live"))
        .isEqualTo("{\"value\":\"2026-03-01T10:00:30.000Z\",\"tieBreak\":\"s4\"}");
    PollerState catalog = store.loadState(CATALOG).orElseThrow();
    assertThat(catalog.lastSequence()).isEqualTo(6);
    assertThat(catalog.schedule().lastPoll().notModified()).isTrue();

    List<OutboxRow> ordersPending = store.loadPending(ORDERS, 0, 10);
    assertThat(ordersPending).hasSize(1);
    OutboxRow o6 = ordersPending.get(0);
    assertThat(o6.sequence()).isEqualTo(7);
    assertThat(o6.eventId()).isEqualTo(PENDING_O6_CREATED);
    assertThat(o6.attempts()).isEqualTo(1);
    assertThat(o6.nextAttemptAt()).isEqualTo(Instant.parse("2026-03-01T10:01:30.655Z"));
    assertThat(o6.lastError()).contains("handler refused o6 created");
    assertThat(o6.createdAt()).isEqualTo(roundAt(4));
    assertThat(store.loadPending(STOCK_EU, 0, 10))
        .extracting(OutboxRow::sequence, OutboxRow::eventId, OutboxRow::attempts)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(3L, PENDING_S1_UPDATED, 0),
            org.assertj.core.groups.Tuple.tuple(4L, PENDING_S5_CREATED, 0));
    assertThat(store.countPending(STOCK_US)).isZero();
    assertThat(store.countPending(CATALOG)).isZero();

    List<ParkedRow> parked = store.listParked(ORDERS, null, 10);
    assertThat(parked)
        .extracting(ParkedRow::kind)
        .containsOnly(ParkedKind.POISON, ParkedKind.INVALID);
    ParkedRow poison = store.listParked(ORDERS, ParkedKind.POISON, 10).get(0);
    assertThat(poison.id()).isEqualTo("3");
    assertThat(poison.sequence()).isEqualTo(3L);
    assertThat(poison.eventId()).isEqualTo(PARKED_O3_CREATED);
    assertThat(poison.attempts()).isEqualTo(3);
    assertThat(poison.parkedAt()).isEqualTo(roundAt(3));
    assertThat(poison.error()).contains("handler refused o3 created").contains("\"history\"");
    ParkedRow invalid = store.listParked(ORDERS, ParkedKind.INVALID, 10).get(0);
    assertThat(invalid.orderingKey()).isEqualTo("o4");
    assertThat(invalid.item()).contains("\"price\":-5");
    assertThat(invalid.error()).contains("price must be >= 0, but was -5");

    String urlHash = sha256((catalogUrl() + "?page=1").getBytes(StandardCharsets.UTF_8));
    HttpValidator validator = store.getValidator(CATALOG, urlHash).orElseThrow();
    assertThat(validator.etag()).isEqualTo(FIXTURE_ETAG);
    assertThat(validator.lastModified()).isNull();
    assertThat(validator.storedAt()).isEqualTo(roundAt(3));

    List<LoggedEvent> log = store.readLog(ORDERS, LogRange.ALL, 100);
    assertThat(log).extracting(LoggedEvent::sequence).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
    assertThat(log.get(6).event()).contains(PENDING_O6_CREATED);
    assertThat(log.get(0).createdAt()).isEqualTo(T0);
  }

  /**
   * Polls on from the fixture with the current store and checks every event: rounds 5 (nothing new
   * at the vendor), 6 (an update, a create and, for the catalog, a delete per poller) and 7 (the
   * parked poison event retried).
   */
  public void check(StateStore store) {
    replayFixtureVendor();
    assertFixtureReadsBack(store);
    HttpServer server = serve();
    try (Watukuy w = engine(store)) {
      // Round 5: the vendor has not changed. The fixture's pending events are delivered, each
      // exactly once, under their stored ids and sequences (o6 on its second attempt); nothing
      // else: the cursors hold, the catalog's stored ETag earns a 304.
      TickReport r5 = round(w, 5);
      assertThat(delivered)
          .containsExactlyInAnyOrder(
              "orders o6:created #7 attempt 2",
              "stock[eu] s1:updated #3 attempt 1",
              "stock[eu] s5:created #4 attempt 1");
      assertThat(keyOrder("stock[eu]")).containsExactly("s1:updated", "s5:created");
      assertThat(deliveredIds)
          .containsExactlyInAnyOrder(PENDING_O6_CREATED, PENDING_S1_UPDATED, PENDING_S5_CREATED);
      assertThat(http).containsExactly(FIXTURE_ETAG + " -> 304");
      assertThat(r5.key(CATALOG).orElseThrow().notModified()).isTrue();
      assertThat(r5.eventsCommitted()).isZero();
      for (PollerKey key : List.of(ORDERS, STOCK_EU, STOCK_US, CATALOG)) {
        assertThat(store.countPending(key)).as("pending of %s", key).isZero();
      }

      // Round 6: only the new changes, with sequences that continue the fixture's.
      TickReport r6 = round(w, 6);
      assertThat(delivered)
          .containsExactlyInAnyOrder(
              "orders o2:updated #8 attempt 1",
              "orders o7:created #9 attempt 1",
              "stock[eu] s6:created #5 attempt 1",
              "stock[us] s4:updated #4 attempt 1",
              "catalog c1:updated #7 attempt 1",
              "catalog c5:created #8 attempt 1",
              "catalog c3:deleted #9 attempt 1");
      assertThat(keyOrder("orders")).containsExactly("o2:updated", "o7:created");
      assertThat(keyOrder("catalog")).containsExactly("c1:updated", "c5:created", "c3:deleted");
      assertThat(r6.eventsCommitted()).isEqualTo(7);
      assertThat(http).hasSize(1);
      assertThat(http.get(0)).startsWith(FIXTURE_ETAG + " -> 200 ");
      // The stored payloads (retain PAYLOAD) come back as previous and as the deleted item.
      ChangeEvent<JsonNode> c1 = only("c1", "updated");
      assertThat(c1.previous().get("title").asText()).isEqualTo("chair");
      assertThat(c1.data().get("title").asText()).isEqualTo("armchair");
      ChangeEvent<JsonNode> c3 = only("c3", "deleted");
      assertThat(c3.data().get("title").asText()).isEqualTo("lamp");
      // The deleted event carries the hash the fixture stored for c3.
      assertThat(c3.hash())
          .isEqualTo("ca99109eb3d151cc0ebd13e694f711c835bb8de21cde33f5143439135cc57e82");

      // Round 7: the fixture's parked poison event, retried, comes back once at its place.
      assertThat(w.parked().retry(ORDERS, List.of("3"))).isEqualTo(1);
      round(w, 7);
      assertThat(delivered).containsExactly("orders o3:created #3 attempt 1");
      assertThat(deliveredIds.get(deliveredIds.size() - 1)).isEqualTo(PARKED_O3_CREATED);
      assertThat(http).hasSize(1);
      assertThat(http.get(0)).endsWith(" -> 304");
      assertThat(store.listParked(ORDERS, null, 10))
          .extracting(ParkedRow::kind)
          .containsExactly(ParkedKind.INVALID);
    } finally {
      server.stop(0);
    }

    // Over the three rounds: no event twice, none of the acknowledged ones again.
    assertThat(deliveredIds).doesNotHaveDuplicates().doesNotContainAnyElementsOf(ACKED_IN_FIXTURE);
    assertThat(deliveredIds).hasSize(3 + 7 + 1);
    assertThat(store.readLog(ORDERS, LogRange.after(7), 100))
        .extracting(LoggedEvent::sequence)
        .containsExactly(8L, 9L);
  }

  /** The events of one key delivered in the current round, as "identity:type", in order. */
  private List<String> keyOrder(String key) {
    return delivered.stream()
        .filter(d -> d.startsWith(key + " "))
        .map(d -> d.split(" ")[1])
        .toList();
  }

  private ChangeEvent<JsonNode> only(String identity, String type) {
    List<ChangeEvent<JsonNode>> found =
        byId.values().stream()
            .filter(e -> e.identity().equals(identity) && e.type().wire().equals(type))
            .toList();
    assertThat(found).hasSize(1);
    return found.get(0);
  }
}
