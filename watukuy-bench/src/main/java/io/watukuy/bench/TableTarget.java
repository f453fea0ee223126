package io.watukuy.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The table sink ({@code type: table}, insert mode, conflict on the delivery key ignored) on
 * PostgreSQL or SQLite, with {@code sameDatabase: true} (the table in the store's own database, the
 * rows and the ack in one store transaction; the engine then runs on that SQL store) or without
 * (the sink's own connection; the engine on the memory store). Beside it, plain JDBC writes the
 * same rows into a table of the same shape in the same database: one batched {@code INSERT ... ON
 * CONFLICT (delivery_key) DO NOTHING} and one commit per batch.
 */
final class TableTarget implements SinkTarget {
  private static final List<String> COLUMNS =
      List.of("delivery_key", "event_id", "kind", "item_id", "seq", "body");

  private final String db;
  private final boolean same;
  private final String postgresUrl;
  private final String prefix =
      "wkb_" + Long.toHexString(System.nanoTime() ^ ProcessHandle.current().pid()) + "_";
  private final Path dir = Files.createTempDirectory("watukuy-bench-table");
  private final List<String> ownTables = new ArrayList<>();
  private final Map<Integer, String> sinkTables = new LinkedHashMap<>();
  private final Map<Integer, String> sinkUrls = new LinkedHashMap<>();

  /**
   * @param db {@code postgres} or {@code sqlite}
   * @param same whether the table shares the store's database ({@code sameDatabase: true})
   * @param postgresUrl the PostgreSQL of the bench
   */
  TableTarget(String db, boolean same, String postgresUrl) throws IOException {
    if (!db.equals("postgres") && !db.equals("sqlite"))
      throw new IllegalArgumentException("a table on postgres or sqlite, not " + db);
    this.db = db;
    this.same = same;
    this.postgresUrl = postgresUrl;
  }

  @Override
  public String name() {
    return "table-" + db + (same ? "-same" : "");
  }

  @Override
  public String store() {
    return same ? db : "memory";
  }

  @Override
  public double target() {
    return 0.5;
  }

  @Override
  public String rawWhat() {
    return "JDBC: one batched INSERT ... ON CONFLICT (delivery_key) DO NOTHING and one commit per"
        + " batch, into a table of the same shape in the same database";
  }

  @Override
  public Map<String, Object> sink(int round, BenchStore store) throws SQLException {
    String url = url(store);
    String table = create(url, store, "sink_" + round);
    sinkTables.put(round, table);
    sinkUrls.put(round, url);
    Map<String, Object> columns = new LinkedHashMap<>();
    columns.put("delivery_key", "deliveryKey");
    columns.put("event_id", "id");
    columns.put("kind", "type");
    columns.put("item_id", "identity");
    columns.put("seq", "sequence");
    columns.put("body", "event");
    Map<String, Object> settings = new LinkedHashMap<>();
    settings.put("type", "table");
    if (same) settings.put("sameDatabase", true);
    else settings.put("url", url);
    settings.put("table", table);
    settings.put("columns", columns);
    return settings;
  }

  @Override
  public Raw raw(int round, BenchStore store) throws SQLException {
    String url = url(store);
    String table = create(url, store, "raw_" + round);
    Connection c = DriverManager.getConnection(url);
    if (same && db.equals("sqlite"))
      try (Statement s = c.createStatement()) {
        // SqliteStore's own setting on its connections (WAL is the file's)
        s.execute("PRAGMA synchronous = NORMAL");
      }
    c.setAutoCommit(false);
    PreparedStatement insert =
        c.prepareStatement(
            "INSERT INTO "
                + table
                + " ("
                + String.join(", ", COLUMNS)
                + ") VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (delivery_key) DO NOTHING");
    boolean postgres = db.equals("postgres");
    return new Raw() {
      @Override
      public void write(List<SinkRecord> batch) throws SQLException {
        for (SinkRecord r : batch) {
          insert.setString(1, r.deliveryKey());
          insert.setString(2, r.eventId());
          insert.setString(3, r.type());
          insert.setString(4, r.identity());
          insert.setLong(5, r.sequence());
          if (postgres) insert.setObject(6, r.json(), Types.OTHER);
          else insert.setString(6, r.json());
          insert.addBatch();
        }
        insert.executeBatch();
        c.commit();
      }

      @Override
      public void close() throws SQLException {
        try (c) {
          insert.close();
        }
      }
    };
  }

  @Override
  public @Nullable Long delivered(int round) throws SQLException {
    String table = sinkTables.get(round);
    if (table == null) return null;
    try (Connection c = DriverManager.getConnection(sinkUrls.get(round));
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** The database of the table: the store's own, or the bench's PostgreSQL or SQLite file. */
  private String url(BenchStore store) {
    if (same) {
      String url = store.jdbcUrl();
      if (url == null) throw new IllegalStateException(store + " has no SQL database");
      return url;
    }
    return db.equals("postgres") ? postgresUrl : "jdbc:sqlite:" + dir.resolve("tables.db");
  }

  /** Creates the table of a pass and returns its (qualified) name. */
  private String create(String url, BenchStore store, String pass) throws SQLException {
    String table = same ? store.besideStore(pass) : prefix + pass;
    String json = db.equals("postgres") ? "jsonb" : "text";
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute(
          String.format(
              Locale.ROOT,
              "CREATE TABLE %s (delivery_key text PRIMARY KEY, event_id text NOT NULL, kind text"
                  + " NOT NULL, item_id text NOT NULL, seq bigint NOT NULL, body %s NOT NULL)",
              table,
              json));
    }
    // The store's schema or folder goes with the store; a table of the bench's own is dropped here.
    if (!same && db.equals("postgres")) ownTables.add(table);
    return table;
  }

  @Override
  public void close() throws SQLException, IOException {
    if (!ownTables.isEmpty())
      try (Connection c = DriverManager.getConnection(postgresUrl);
          Statement s = c.createStatement()) {
        for (String t : ownTables) s.execute("DROP TABLE IF EXISTS " + t);
      }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
    }
  }
}
