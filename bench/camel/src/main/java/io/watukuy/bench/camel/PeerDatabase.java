package io.watukuy.bench.camel;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sql.DataSource;

/**
 * The database of the Camel peer's {@code JdbcMessageIdRepository}: the same server (or, for
 * SQLite, the same file system and settings) as the end-to-end bench's store, with a table of its
 * own that {@link #close()} removes. A HikariCP pool of at most 4 connections, as the bench gives
 * {@code PostgresStore} and {@code MariaDbStore}:
 *
 * <ul>
 *   <li>{@code sqlite}: a file in a fresh temporary folder, WAL and {@code synchronous = NORMAL}
 *       (SqliteStore's settings);
 *   <li>{@code postgres}: a fresh schema {@code watukuy_bench_camel_<hex>}, the server's durability
 *       ({@code synchronous_commit}); when the server's autovacuum is off, {@code VACUUM ANALYZE}
 *       of the table every 10 s, as the bench does for its own schema;
 *   <li>{@code mariadb}: a table {@code wkb_camel_<hex>_messageprocessed} in the URL's database.
 * </ul>
 */
final class PeerDatabase implements AutoCloseable {
  /** The stores the peer runs on: those with a JDBC database. */
  static final List<String> KINDS = List.of("sqlite", "postgres", "mariadb");

  private final String kind;
  private final String url;
  private final HikariDataSource pool;
  private final String table;
  private final String version;
  private final String note;
  private final Path dir;
  private final String schema;
  private final ScheduledExecutorService analyzer;
  private boolean closed;

  private PeerDatabase(String kind, String url, String table, Path dir, String schema)
      throws SQLException {
    this.kind = kind;
    this.url = url;
    this.table = table;
    this.dir = dir;
    this.schema = schema;
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setPoolName("watukuy-bench-camel");
    config.setMaximumPoolSize(4);
    config.setMinimumIdle(1);
    // SqliteStore's settings; synchronous is per connection.
    if (kind.equals("sqlite")) config.setConnectionInitSql("PRAGMA synchronous = NORMAL");
    pool = new HikariDataSource(config);
    boolean vacuum = false;
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      DatabaseMetaData meta = c.getMetaData();
      version =
          meta.getDatabaseProductName()
              + " "
              + meta.getDatabaseProductVersion()
              + " ("
              + meta.getDriverName()
              + " "
              + meta.getDriverVersion()
              + ")";
      switch (kind) {
        case "sqlite" -> s.execute("PRAGMA journal_mode = WAL");
        case "postgres" -> {
          s.execute("CREATE SCHEMA " + schema);
          try (ResultSet rs = s.executeQuery("show autovacuum")) {
            rs.next();
            vacuum = !rs.getString(1).equals("on");
          }
        }
        default -> {}
      }
    }
    if (vacuum) {
      note =
          "autovacuum off on the server: the peer runs VACUUM ANALYZE on its table every 10 s, as"
              + " the bench does on its schema's";
      analyzer =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "camel-peer-analyze");
                t.setDaemon(true);
                return t;
              });
      analyzer.scheduleWithFixedDelay(this::analyze, 10, 10, TimeUnit.SECONDS);
    } else {
      note = "";
      analyzer = null;
    }
  }

  /**
   * Opens the peer's database next to the bench's store of that kind.
   *
   * @param kind {@code sqlite}, {@code postgres} or {@code mariadb}
   * @param postgresUrl the PostgreSQL of the bench
   * @param mariadbUrl the MariaDB of the bench
   * @throws IllegalArgumentException for another kind
   * @throws SQLException if the server cannot be reached or refuses to create the schema
   */
  static PeerDatabase open(String kind, String postgresUrl, String mariadbUrl)
      throws SQLException, IOException {
    String hex = Long.toHexString(System.nanoTime() ^ ProcessHandle.current().pid());
    return switch (kind) {
      case "sqlite" -> {
        Path dir = Files.createTempDirectory("watukuy-bench-camel");
        yield new PeerDatabase(
            kind, "jdbc:sqlite:" + dir.resolve("camel.db"), "CAMEL_MESSAGEPROCESSED", dir, null);
      }
      case "postgres" -> {
        String schema = "watukuy_bench_camel_" + hex;
        yield new PeerDatabase(kind, postgresUrl, schema + ".camel_messageprocessed", null, schema);
      }
      case "mariadb" ->
          new PeerDatabase(kind, mariadbUrl, "wkb_camel_" + hex + "_messageprocessed", null, null);
      default ->
          throw new IllegalArgumentException(
              "the Camel peer runs on sqlite, postgres or mariadb, not '" + kind + "'");
    };
  }

  DataSource dataSource() {
    return pool;
  }

  /** The repository's table, qualified where needed. */
  String table() {
    return table;
  }

  /** The server's (or library's) and the driver's versions. */
  String version() {
    return version;
  }

  /** What a reader of the results must know about how the database ran; empty if nothing. */
  String note() {
    return note;
  }

  /** Rows in the repository's table. */
  long rows() throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private void analyze() {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute("VACUUM ANALYZE " + table);
    } catch (SQLException e) {
      // The table is created when the route first starts.
      if (!"42P01".equals(e.getSQLState()))
        System.err.println("camel peer: VACUUM ANALYZE failed: " + e.getMessage());
    }
  }

  /** Closes the pool and removes the table (the schema, the folder); only the first call acts. */
  @Override
  public synchronized void close() throws Exception {
    if (closed) return;
    closed = true;
    if (analyzer != null) {
      analyzer.shutdownNow();
      analyzer.awaitTermination(30, TimeUnit.SECONDS);
    }
    pool.close();
    switch (kind) {
      case "postgres" -> {
        try (Connection c = DriverManager.getConnection(url);
            Statement s = c.createStatement()) {
          s.execute("SET lock_timeout = '30s'");
          s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
      }
      case "mariadb" -> {
        try (Connection c = DriverManager.getConnection(url);
            Statement s = c.createStatement()) {
          s.execute("DROP TABLE IF EXISTS " + table);
        }
      }
      default -> {
        try (Stream<Path> files = Files.walk(dir)) {
          for (Path p : files.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
      }
    }
  }
}
