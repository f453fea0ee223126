package io.watukuy.sink.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.watukuy.ChangeEvent;
import io.watukuy.ConfigException;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.EventType;
import io.watukuy.Lane;
import io.watukuy.Poller;
import io.watukuy.Schedule;
import io.watukuy.Watukuy;
import io.watukuy.sink.Destination;
import io.watukuy.sink.EventFormat;
import io.watukuy.spi.StateStore;
import io.watukuy.store.jdbc.JdbcStore;
import io.watukuy.testing.FakeApi;
import io.watukuy.testing.SeededRandom;
import io.watukuy.testing.VirtualClock;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The table sink against a real database (docs/sinks.md, "Database tables"): every change of a
 * mutating API arrives as rows, A → B → A gives three rows, a mirror table equals the API under
 * {@code concurrency} > 1, a redelivered batch meets its own rows, a missing table or column or a
 * key column that is not unique is a clear error at {@code open()}, and with {@code sameDatabase}
 * the rows and the acks commit together. Each database runs it through a subclass.
 */
abstract class TableSinkScenarios {
  private static final Duration INTERVAL = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z");
  private final FakeApi api = new FakeApi(clock);
  private final List<AutoCloseable> closing = new ArrayList<>();

  /** A fresh store for the running test, in the database of {@link #storeUrl()}. */
  protected abstract JdbcStore newStore();

  /** The JDBC URL of the store's database, user included. */
  protected abstract String storeUrl();

  /** The JDBC URL of the database of the sink's own connections (a table without sameDatabase). */
  protected abstract String sinkUrl();

  /** The name, qualified if needed, of a table no other test uses. */
  protected abstract String table(String base);

  /** The column type for JSON: jsonb, JSON or TEXT. */
  protected abstract String jsonType();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) closing.get(i).close();
  }

  // ------------------------------------------------------------------ insert mode

  @Test
  void everyChangeOfAMutatingApiArrivesAsOneRowPerEventInSequenceOrderPerItem() throws Exception {
    String t = historyTable(sinkUrl(), "history");
    TableSink sink = open(new TableSink(history(t, sinkUrl(), false)));
    Poller<JsonNode> orders = orders();
    Watukuy engine = engine(newStore(), orders, sink, Runnable::run, 1, 100);

    for (int i = 1; i <= 5; i++) api.put("o" + i, Map.of("n", i));
    engine.tick();
    clock.advance(INTERVAL);
    api.put("o2", Map.of("n", 22));
    api.delete("o3");
    api.put("o6", Map.of("n", 6));
    engine.tick();

    List<Map<String, Object>> rows = rows(sinkUrl(), "SELECT * FROM " + t + " ORDER BY seq");
    assertThat(rows)
        .extracting(r -> r.get("item_id") + ":" + r.get("kind"))
        .containsExactlyInAnyOrder(
            "o1:created",
            "o2:created",
            "o3:created",
            "o4:created",
            "o5:created",
            "o2:updated",
            "o3:deleted",
            "o6:created");
    assertThat(rows).extracting(r -> r.get("delivery_key")).doesNotHaveDuplicates();
    Map<String, List<String>> kindsByItem = new TreeMap<>();
    for (Map<String, Object> r : rows)
      kindsByItem
          .computeIfAbsent((String) r.get("item_id"), k -> new ArrayList<>())
          .add((String) r.get("kind"));
    assertThat(kindsByItem.get("o2")).containsExactly("created", "updated");
    assertThat(kindsByItem.get("o3")).containsExactly("created", "deleted");
    Map<String, Object> update =
        rows.stream().filter(r -> "updated".equals(r.get("kind"))).findFirst().orElseThrow();
    assertThat(JSON.readTree(update.get("body").toString()).get("n").asInt()).isEqualTo(22);
    assertThat(JSON.readTree(update.get("envelope").toString()).get("identity").asText())
        .isEqualTo("o2");
    assertThat(update.get("delivery_key"))
        .isEqualTo(update.get("event_id") + "-" + update.get("seq"));
  }

  @Test
  void anItemThatGoesAToBToAGivesThreeRowsWithThreeDeliveryKeys() throws Exception {
    String t = historyTable(sinkUrl(), "aba");
    TableSink sink = open(new TableSink(history(t, sinkUrl(), false)));
    // The engine gives the third event the first one's id (G2: an id names an observation).
    List<ChangeEvent<Object>> aba =
        List.of(
            event("evt-a", 1, EventType.CREATED, "item-1", "{\"v\":\"A\"}"),
            event("evt-b", 2, EventType.UPDATED, "item-1", "{\"v\":\"B\"}"),
            event("evt-a", 3, EventType.UPDATED, "item-1", "{\"v\":\"A\"}"));

    assertThat(sink.handle(aba).allHandled()).isTrue();

    assertThat(rows(sinkUrl(), "SELECT * FROM " + t + " ORDER BY seq"))
        .extracting(r -> r.get("delivery_key"))
        .containsExactly("evt-a-1", "evt-b-2", "evt-a-3");
  }

  @Test
  void aBatchDeliveredAgainMeetsItsOwnRowsAndAddsNone() throws Exception {
    String t = historyTable(sinkUrl(), "again");
    TableSink sink = open(new TableSink(history(t, sinkUrl(), false)));
    List<ChangeEvent<Object>> batch =
        List.of(
            event("evt-1", 1, EventType.CREATED, "item-1", "{\"v\":1}"),
            event("evt-2", 2, EventType.CREATED, "item-2", "{\"v\":2}"));

    sink.handle(batch);
    sink.handle(batch); // a crash between the commit and the engine's ack (G9)

    assertThat(rows(sinkUrl(), "SELECT * FROM " + t)).hasSize(2);
  }

  @Test
  void onConflictUpdateOverwritesTheRowOfARedeliveredEvent() throws Exception {
    String t = historyTable(sinkUrl(), "overwrite");
    TableSettings s = history(t, sinkUrl(), false);
    TableSink sink =
        open(
            new TableSink(
                new TableSettings(
                    s.url(),
                    null,
                    null,
                    s.table(),
                    TableMode.INSERT,
                    s.columns(),
                    OnConflict.UPDATE,
                    false,
                    EventFormat.ENVELOPE)));
    sink.handle(List.of(event("evt-1", 1, EventType.CREATED, "item-1", "{\"v\":1}")));
    sink.handle(List.of(event("evt-1", 1, EventType.CREATED, "item-1-renamed", "{\"v\":1}")));

    assertThat(rows(sinkUrl(), "SELECT * FROM " + t))
        .extracting(r -> r.get("item_id"))
        .containsExactly("item-1-renamed");
  }

  // ------------------------------------------------------------------ mirror mode

  @Test
  void aMirrorTableEqualsTheApiAfterCreatesUpdatesAndDeletesUnderConcurrencyFour()
      throws Exception {
    String t = table("mirror");
    execute(
        sinkUrl(),
        "CREATE TABLE "
            + t
            + " (item_id VARCHAR(200) PRIMARY KEY, seq BIGINT NOT NULL, kind VARCHAR(20),"
            + " body "
            + jsonType()
            + ")");
    Map<String, EventField> columns = new LinkedHashMap<>();
    columns.put("item_id", EventField.IDENTITY);
    columns.put("seq", EventField.SEQUENCE);
    columns.put("kind", EventField.TYPE);
    columns.put("body", EventField.DATA);
    TableSink sink =
        open(
            new TableSink(
                new TableSettings(
                    sinkUrl(),
                    null,
                    null,
                    Destination.parse(t),
                    TableMode.MIRROR,
                    columns,
                    OnConflict.IGNORE,
                    false,
                    EventFormat.ENVELOPE)));
    ExecutorService handlers = Executors.newFixedThreadPool(4);
    closing.add(() -> shutdown(handlers));
    Watukuy engine = engine(newStore(), orders(), sink, handlers, 4, 3);
    Random random = new Random(18);
    for (int round = 0; round < 6; round++) {
      for (int change = 0; change < 15; change++) {
        String id = "o" + random.nextInt(12);
        if (random.nextInt(4) == 0) api.delete(id);
        else api.put(id, Map.of("n", random.nextInt(1000)));
      }
      engine.tick();
      clock.advance(INTERVAL);
    }

    Map<String, Integer> expected = new TreeMap<>();
    for (JsonNode item : api.items()) expected.put(item.get("id").asText(), item.get("n").asInt());
    Map<String, Integer> mirrored = new TreeMap<>();
    for (Map<String, Object> r : rows(sinkUrl(), "SELECT * FROM " + t))
      mirrored.put(
          (String) r.get("item_id"), JSON.readTree(r.get("body").toString()).get("n").asInt());
    assertThat(expected).isNotEmpty();
    assertThat(mirrored).isEqualTo(expected);
  }

  @Test
  void aMirrorRowIsNeverOverwrittenByAnOlderEvent() throws Exception {
    String t = table("mirror_old");
    execute(
        sinkUrl(),
        "CREATE TABLE " + t + " (item_id VARCHAR(200) PRIMARY KEY, seq BIGINT NOT NULL, v TEXT)");
    Map<String, EventField> columns = new LinkedHashMap<>();
    columns.put("item_id", EventField.IDENTITY);
    columns.put("seq", EventField.SEQUENCE);
    columns.put("v", EventField.VERSION);
    TableSink sink =
        open(
            new TableSink(
                new TableSettings(
                    sinkUrl(),
                    null,
                    null,
                    Destination.parse(t),
                    TableMode.MIRROR,
                    columns,
                    OnConflict.IGNORE,
                    false,
                    EventFormat.ENVELOPE)));

    sink.handle(List.of(event("evt-2", 2, EventType.UPDATED, "item-1", "{\"v\":2}")));
    sink.handle(List.of(event("evt-1", 1, EventType.CREATED, "item-1", "{\"v\":1}")));
    sink.handle(List.of(event("evt-0", 1, EventType.DELETED, "item-1", null)));

    assertThat(rows(sinkUrl(), "SELECT * FROM " + t))
        .extracting(r -> r.get("item_id") + "@" + r.get("seq") + ":" + r.get("v"))
        .containsExactly("item-1@2:v-2");
  }

  // ------------------------------------------------------------------ checks at open

  @Test
  void aMissingTableIsAClearErrorAtOpenNamingTheTable() {
    String absent = table("absent");
    TableSink sink = new TableSink(history(absent, sinkUrl(), false));
    closing.add(sink);

    assertThatThrownBy(sink::open)
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("table " + absent + " cannot be read")
        .hasMessageContaining("cannot be read");
  }

  @Test
  void aMissingColumnIsAClearErrorAtOpenNamingTheTableAndTheColumn() throws Exception {
    String t = table("narrow");
    execute(sinkUrl(), "CREATE TABLE " + t + " (delivery_key VARCHAR(200) PRIMARY KEY)");
    TableSink sink = new TableSink(history(t, sinkUrl(), false));
    closing.add(sink);

    assertThatThrownBy(sink::open)
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("table " + t + " has no column")
        .hasMessageContaining("event_id");
  }

  @Test
  void aConflictColumnThatIsNotUniqueIsAClearErrorAtOpen() throws Exception {
    String t = table("loose");
    execute(
        sinkUrl(),
        "CREATE TABLE "
            + t
            + " (delivery_key VARCHAR(200), event_id VARCHAR(200), kind VARCHAR(20),"
            + " item_id VARCHAR(200), seq BIGINT, body "
            + jsonType()
            + ", envelope "
            + jsonType()
            + ")");
    TableSink sink = new TableSink(history(t, sinkUrl(), false));
    closing.add(sink);

    assertThatThrownBy(sink::open)
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("column delivery_key of table " + t + " is not unique");
  }

  // ------------------------------------------------------------------ sameDatabase

  @Test
  void withSameDatabaseTheRowsAndTheAcksCommitInTheStoresTransaction() throws Exception {
    JdbcStore store = newStore();
    store.migrate();
    String t = historyTable(storeUrl(), "same");
    TableSink sink = open(new TableSink(history(t, null, true), store));
    Poller<JsonNode> orders = orders();
    Watukuy engine = engine(store, orders, sink, Runnable::run, 1, 4);

    for (int i = 1; i <= 9; i++) api.put("o" + i, Map.of("n", i));
    engine.tick();

    assertThat(rows(storeUrl(), "SELECT * FROM " + t))
        .extracting(r -> r.get("item_id"))
        .containsExactlyInAnyOrder("o1", "o2", "o3", "o4", "o5", "o6", "o7", "o8", "o9");
    assertThat(store.countPending(io.watukuy.PollerKey.of("orders"))).isZero();
  }

  @Test
  void sameDatabaseOutsideAnEngineHandOffWritesNothing() throws Exception {
    JdbcStore store = newStore();
    store.migrate();
    String t = historyTable(storeUrl(), "nolease");
    TableSink sink = open(new TableSink(history(t, null, true), store));

    assertThatThrownBy(() -> sink.handle(List.of(event("evt-1", 1, EventType.CREATED, "i", "{}"))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("under its lease");
    assertThat(rows(storeUrl(), "SELECT * FROM " + t)).isEmpty();
  }

  // ------------------------------------------------------------------ helpers

  private String historyTable(String url, String base) throws SQLException {
    String t = table(base);
    execute(
        url,
        "CREATE TABLE "
            + t
            + " (delivery_key VARCHAR(200) PRIMARY KEY, event_id VARCHAR(200) NOT NULL,"
            + " kind VARCHAR(20) NOT NULL, item_id VARCHAR(200) NOT NULL, seq BIGINT NOT NULL,"
            + " body "
            + jsonType()
            + ", envelope "
            + jsonType()
            + ")");
    return t;
  }

  static TableSettings history(String table, String url, boolean sameDatabase) {
    Map<String, EventField> columns = new LinkedHashMap<>();
    columns.put("delivery_key", EventField.DELIVERY_KEY);
    columns.put("event_id", EventField.ID);
    columns.put("kind", EventField.TYPE);
    columns.put("item_id", EventField.IDENTITY);
    columns.put("seq", EventField.SEQUENCE);
    columns.put("body", EventField.DATA);
    columns.put("envelope", EventField.EVENT);
    return new TableSettings(
        url,
        null,
        null,
        Destination.parse(table),
        TableMode.INSERT,
        columns,
        OnConflict.IGNORE,
        sameDatabase,
        EventFormat.ENVELOPE);
  }

  private TableSink open(TableSink sink) throws Exception {
    closing.add(sink);
    sink.open();
    return sink;
  }

  private Poller<JsonNode> orders() {
    return Poller.builder("orders", JsonNode.class)
        .identity(n -> n.get("id"))
        .cursor(Cursors.snapshotDiff())
        .fetch(api.snapshotFetcher(5))
        .schedule(Schedule.every(INTERVAL).withAdaptive(false).withJitter(0))
        .build();
  }

  private Watukuy engine(
      StateStore store,
      Poller<JsonNode> poller,
      TableSink sink,
      java.util.concurrent.Executor handlers,
      int concurrency,
      int batchSize) {
    closing.add(store);
    return Watukuy.builder()
        .store(store)
        .time(clock)
        .random(SeededRandom.of(7))
        .instanceId("table-sink-test")
        .executor(Runnable::run)
        .handlerExecutor(handlers)
        .delivery(new DeliveryOptions(concurrency, 100, batchSize))
        .poller(poller)
        .sink(poller, sink)
        .build();
  }

  private static ChangeEvent<Object> event(
      String id, long sequence, EventType type, String identity, String json) throws Exception {
    JsonNode data = json == null ? null : JSON.readTree(json);
    return new ChangeEvent<>(
        id,
        type,
        "orders",
        "",
        identity,
        identity,
        "v-" + sequence,
        null,
        1,
        Lane.LIVE,
        sequence,
        Instant.parse("2026-03-01T10:00:00Z"),
        data,
        null,
        1);
  }

  static void execute(String url, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  static List<Map<String, Object>> rows(String url, String sql) throws SQLException {
    List<Map<String, Object>> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        Map<String, Object> row = new HashMap<>();
        for (int i = 1; i <= n; i++) {
          Object v = rs.getObject(i);
          if (v instanceof Number num && !(v instanceof Long)) v = num.longValue();
          if (v != null && !(v instanceof Long) && !(v instanceof String)) v = v.toString();
          row.put(rs.getMetaData().getColumnLabel(i).toLowerCase(java.util.Locale.ROOT), v);
        }
        out.add(row);
      }
    }
    return out;
  }

  private static void shutdown(ExecutorService pool) throws InterruptedException {
    pool.shutdownNow();
    pool.awaitTermination(10, TimeUnit.SECONDS);
  }
}
