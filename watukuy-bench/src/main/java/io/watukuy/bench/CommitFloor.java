package io.watukuy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.store.mariadb.MariaDbStore;
import io.watukuy.store.postgres.PostgresStore;
import io.watukuy.store.sqlite.SqliteStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The commit floor of the first sync: what the commit protocol must write for a listing, and
 * nothing else, with a plain client and raw JDBC. For each page of the listing, in turn:
 *
 * <ol>
 *   <li>GET the page with {@link HttpClient} and parse it with Jackson;
 *   <li>build each item's row (identity, version, a SHA-256 of the item's bytes as its hash) and
 *       its {@code created} event: the envelope watukuy writes, every field in the same order, the
 *       item as {@code data} (the id is a plain SHA-256 of the same id text; the hash is of the
 *       item's bytes, not of its canonical form);
 *   <li>in one transaction: upsert the item rows with one multi-row statement, insert the events as
 *       outbox rows with one multi-row statement, delete those outbox rows with one statement (the
 *       ack), commit.
 * </ol>
 *
 * The tables are the store's own items and outbox tables, created with its published DDL under a
 * prefix of their own ({@code floor_}), so indexes and column types are the store's; the connection
 * has the store's durability settings (SQLite: WAL, {@code synchronous = NORMAL}; PostgreSQL and
 * MariaDB: the server's, as the store's commits use them). No lease, no state, no diff, no
 * dispatcher: watukuy's first sync over this floor's items/s is how close the engine comes to the
 * writes the protocol cannot avoid ({@code commitFloorRatio}).
 *
 * <p>Defined for the SQL stores only. Redis has no statements to compare with (its store writes a
 * page in one Lua script), and MemoryStore writes nothing durable: for them there is no commit
 * floor, and the results say so.
 */
final class CommitFloor implements AutoCloseable {

  /** Pages run once before the timed pass, then removed: JIT and driver warm-up. */
  static final int WARM_UP_PAGES = 2;

  /** The SQL of one database. */
  enum Flavor {
    SQLITE("sqlite"),
    POSTGRES("postgres"),
    MARIADB("mariadb");

    final String label;

    Flavor(String label) {
      this.label = label;
    }

    String quote(String identifier) {
      return this == MARIADB ? '`' + identifier + '`' : '"' + identifier + '"';
    }

    String json() {
      return this == POSTGRES ? "CAST(? AS json)" : "?";
    }

    String upsert(List<String> updated) {
      StringBuilder s = new StringBuilder();
      if (this == MARIADB) {
        s.append(" ON DUPLICATE KEY UPDATE ");
        for (int i = 0; i < updated.size(); i++)
          s.append(i == 0 ? "" : ", ")
              .append(updated.get(i))
              .append(" = VALUES(")
              .append(updated.get(i))
              .append(')');
      } else {
        s.append(" ON CONFLICT (poller, \"partition\", identity) DO UPDATE SET ");
        for (int i = 0; i < updated.size(); i++)
          s.append(i == 0 ? "" : ", ")
              .append(updated.get(i))
              .append(" = excluded.")
              .append(updated.get(i));
      }
      return s.toString();
    }
  }

  /**
   * One measurement.
   *
   * @param store the store's name
   * @param items items written
   * @param pages pages, one transaction each
   * @param seconds wall time of the whole pass: fetch, parse, rows and envelopes, writes
   * @param sql the statements of one page, in order, as prepared for a full page
   */
  record Result(String store, int items, int pages, double seconds, List<String> sql) {
    double itemsPerSecond() {
      return items / seconds;
    }
  }

  private static final List<String> ITEM_UPDATED =
      List.of("version", "hash", "schema_version", "payload", "ordering_key", "seen_at");

  private final Flavor flavor;
  private final Connection connection;
  private final String items;
  private final String outbox;
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private CommitFloor(Flavor flavor, Connection connection, String items, String outbox)
      throws SQLException {
    this.flavor = flavor;
    this.connection = connection;
    this.items = items;
    this.outbox = outbox;
    connection.setAutoCommit(false);
  }

  /** Over a SQLite file of its own, with SqliteStore's pragmas and DDL. */
  static CommitFloor sqlite(Path file) throws SQLException {
    Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
    try (Statement s = c.createStatement()) {
      s.execute("PRAGMA journal_mode = WAL");
      s.execute("PRAGMA synchronous = NORMAL");
      for (String ddl : SqliteStore.ddl("floor_")) s.execute(ddl);
    }
    return new CommitFloor(Flavor.SQLITE, c, "floor_items", "floor_outbox");
  }

  /** In {@code schema}, which exists, with PostgresStore's DDL and the server's durability. */
  static CommitFloor postgres(Connection c, String schema) throws SQLException {
    try (Statement s = c.createStatement()) {
      for (String ddl : PostgresStore.ddl(schema, "floor_")) s.execute(ddl);
    }
    String q = Flavor.POSTGRES.quote(schema) + ".";
    return new CommitFloor(
        Flavor.POSTGRES,
        c,
        q + Flavor.POSTGRES.quote("floor_items"),
        q + Flavor.POSTGRES.quote("floor_outbox"));
  }

  /** Tables {@code <prefix>floor_*} in the URL's database, with MariaDbStore's DDL. */
  static CommitFloor mariadb(Connection c, String prefix) throws SQLException {
    try (Statement s = c.createStatement()) {
      for (String ddl : MariaDbStore.ddl(prefix + "floor_")) s.execute(ddl);
    }
    return new CommitFloor(
        Flavor.MARIADB,
        c,
        Flavor.MARIADB.quote(prefix + "floor_items"),
        Flavor.MARIADB.quote(prefix + "floor_outbox"));
  }

  /**
   * The commit floor of {@code bench}'s store over a fresh copy of the first sync's listing (a new
   * {@link ListingServer} of {@code n} items: the same items, unchanged).
   *
   * @return the measurement, or null where the store has no commit floor
   */
  static @Nullable Result measure(String kind, BenchStore bench, int n) throws Exception {
    try (CommitFloor floor = bench.commitFloor()) {
      if (floor == null) return null;
      try (ListingServer server = new ListingServer(n)) {
        return floor.run(kind, server);
      }
    }
  }

  /**
   * Runs the floor over every page of {@code server}'s listing, after {@value #WARM_UP_PAGES}
   * warm-up pages that are then removed, so the timed pass inserts every item as a first sync does.
   *
   * @param store the store's name, for the result
   * @param server the listing, as the first sync read it
   * @return the timed pass
   * @throws IllegalStateException if the pass did not see every item of the listing
   */
  Result run(String store, ListingServer server) throws Exception {
    pass(server, WARM_UP_PAGES);
    try (Statement s = connection.createStatement()) {
      s.execute("DELETE FROM " + items);
      s.execute("DELETE FROM " + outbox);
    }
    connection.commit();
    long start = System.nanoTime();
    int[] seen = pass(server, Integer.MAX_VALUE);
    double seconds = (System.nanoTime() - start) / 1e9;
    if (seen[0] != server.size())
      throw new IllegalStateException(
          "commit floor wrote " + seen[0] + " of " + server.size() + " items");
    return new Result(store, seen[0], seen[1], seconds, sql(EndToEnd.PAGE, true));
  }

  /** Fetches and writes up to {@code maxPages} pages; returns items and pages. */
  private int[] pass(ListingServer server, int maxPages) throws Exception {
    int seen = 0;
    int pages = 0;
    long seq = 0;
    for (int page = 1; page <= maxPages; page++) {
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(server.url() + "?page=" + page))
              .timeout(Duration.ofSeconds(30))
              .GET()
              .build();
      byte[] body = client.send(request, HttpResponse.BodyHandlers.ofByteArray()).body();
      JsonNode tree = Items.MAPPER.readTree(body);
      List<JsonNode> list = new ArrayList<>();
      tree.get("items").forEach(list::add);
      if (!list.isEmpty()) {
        write(list, seq, Instant.now().truncatedTo(ChronoUnit.MILLIS));
        seq += list.size();
      }
      seen += list.size();
      pages++;
      if (!tree.get("hasMore").asBoolean()) break;
    }
    return new int[] {seen, pages};
  }

  /** One page: the rows, the envelopes, and the transaction. */
  private void write(List<JsonNode> page, long seqBefore, Instant now) throws SQLException {
    int n = page.size();
    String[] ids = new String[n];
    String[] versions = new String[n];
    String[] hashes = new String[n];
    String[] events = new String[n];
    String[] eventIds = new String[n];
    String observedAt = now.toString();
    for (int i = 0; i < n; i++) {
      JsonNode item = page.get(i);
      ids[i] = item.get("id").asText();
      versions[i] = item.get("updated_at").asText();
      hashes[i] = Digests.sha256Hex(item.toString().getBytes(StandardCharsets.UTF_8));
      eventIds[i] =
          Digests.sha256Hex(
              ("watukuy|v1|items||" + ids[i] + "|" + versions[i] + "|1|created")
                  .getBytes(StandardCharsets.UTF_8));
      events[i] =
          envelope(
              eventIds[i], ids[i], versions[i], hashes[i], seqBefore + i + 1, observedAt, item);
    }
    List<String> sql = sql(n, false);
    try (PreparedStatement ps = connection.prepareStatement(sql.get(0))) {
      int p = 1;
      for (int i = 0; i < n; i++) {
        ps.setString(p++, ids[i]);
        ps.setString(p++, versions[i]);
        ps.setString(p++, hashes[i]);
        ps.setString(p++, ids[i]);
        setInstant(ps, p++, now);
      }
      ps.executeUpdate();
    }
    try (PreparedStatement ps = connection.prepareStatement(sql.get(1))) {
      int p = 1;
      for (int i = 0; i < n; i++) {
        ps.setLong(p++, seqBefore + i + 1);
        ps.setString(p++, eventIds[i]);
        ps.setString(p++, ids[i]);
        ps.setString(p++, events[i]);
        setInstant(ps, p++, now);
      }
      ps.executeUpdate();
    }
    try (PreparedStatement ps = connection.prepareStatement(sql.get(2))) {
      if (flavor == Flavor.POSTGRES) {
        Long[] seqs = new Long[n];
        for (int i = 0; i < n; i++) seqs[i] = seqBefore + i + 1;
        ps.setArray(1, connection.createArrayOf("bigint", seqs));
      } else {
        for (int i = 0; i < n; i++) ps.setLong(i + 1, seqBefore + i + 1);
      }
      if (ps.executeUpdate() != n)
        throw new IllegalStateException("commit floor: the delete missed outbox rows");
    }
    connection.commit();
  }

  /** The envelope of a created event, fields in the order watukuy writes them. */
  private static String envelope(
      String id, String identity, String version, String hash, long seq, String at, JsonNode data) {
    ObjectNode n = Items.MAPPER.createObjectNode();
    n.put("id", id);
    n.put("type", "created");
    n.put("source", "items");
    n.put("partition", "");
    n.put("identity", identity);
    n.put("orderingKey", identity);
    n.put("version", version);
    n.put("hash", hash);
    n.put("schemaVersion", 1);
    n.put("lane", "live");
    n.put("sequence", seq);
    n.put("observedAt", at);
    n.set("data", data);
    n.putNull("previous");
    n.putNull("attempt");
    return n.toString();
  }

  private void setInstant(PreparedStatement ps, int index, Instant at) throws SQLException {
    if (flavor == Flavor.POSTGRES)
      ps.setObject(index, OffsetDateTime.ofInstant(at, ZoneOffset.UTC));
    else ps.setLong(index, at.toEpochMilli());
  }

  /**
   * The three statements of a page of {@code rows} rows: the item upsert, the outbox insert and the
   * delete, each prepared with its placeholders; when {@code printable}, each list of {@code rows}
   * value lists or placeholders is written as its first entry, {@code ...} and the count, for the
   * results file.
   */
  List<String> sql(int rows, boolean printable) {
    String partition = flavor.quote("partition");
    String itemRow = "('items', '', ?, ?, ?, 1, NULL, ?, ?)";
    String outboxRow = "('items', '', ?, ?, ?, " + flavor.json() + ", ?)";
    String upsert =
        "INSERT INTO "
            + items
            + " (poller, "
            + partition
            + ", identity, version, hash, schema_version, payload, ordering_key, seen_at) VALUES "
            + repeat(itemRow, rows, printable)
            + flavor.upsert(ITEM_UPDATED);
    String insert =
        "INSERT INTO "
            + outbox
            + " (poller, "
            + partition
            + ", seq, event_id, ordering_key, event, created_at) VALUES "
            + repeat(outboxRow, rows, printable);
    String list =
        flavor == Flavor.POSTGRES
            ? "seq = ANY (?)"
            : "seq IN (" + repeat("?", rows, printable) + ")";
    String delete =
        "DELETE FROM " + outbox + " WHERE poller = 'items' AND " + partition + " = '' AND " + list;
    return List.of(upsert, insert, delete);
  }

  private static String repeat(String one, int times, boolean printable) {
    return printable
        ? one + ", ... (" + times + " in all)"
        : String.join(", ", Collections.nCopies(times, one));
  }

  /** A one-line description of the floor for the table. */
  static String describe(Result r) {
    return String.format(
        Locale.ROOT,
        "commit floor (fetch + parse, then upsert items, insert outbox, delete them; one"
            + " transaction per page, %d pages): %,.0f items/s",
        r.pages(),
        r.itemsPerSecond());
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }
}
