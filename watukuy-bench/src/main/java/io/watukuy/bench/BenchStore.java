package io.watukuy.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.watukuy.spi.StateStore;
import io.watukuy.store.mariadb.MariaDbStore;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.store.postgres.PostgresStore;
import io.watukuy.store.redis.LettuceRedis;
import io.watukuy.store.redis.RedisStore;
import io.watukuy.store.sqlite.SqliteStore;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.postgresql.Driver;

/**
 * One store under test, fresh and empty, with its raw baseline and its version. {@link #close()}
 * removes everything the run left (the PostgreSQL schema, the MariaDB tables, the Redis keys, the
 * SQLite folder); it runs once, whether the run ends or a shutdown hook closes it first.
 */
abstract class BenchStore implements AutoCloseable {
  /** The stores, as {@code --store} names them. */
  static final List<String> KINDS = List.of("memory", "sqlite", "postgres", "mariadb", "redis");

  private boolean closed;

  /** Where the persistent stores are. */
  record Where(String postgresUrl, String redisUri, String mariadbUrl) {}

  /**
   * A server of a persistent store that cannot be reached or refused the connection: the message is
   * one line for the user, with what to do about it.
   */
  static final class UnreachableException extends Exception {
    UnreachableException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** The store for the engine. */
  abstract StateStore store();

  /** A new raw baseline on the same server (or file system), with the same durability. */
  abstract RawStore raw() throws Exception;

  /** The store's server or library version, for the results. */
  abstract String version() throws Exception;

  /** A new {@link CommitFloor} beside the store; null where none is defined (Redis, memory). */
  @Nullable CommitFloor commitFloor() throws Exception {
    return null;
  }

  /**
   * The JDBC URL of the store's own database, for a table that shares it (the table sink's {@code
   * sameDatabase}); null where the store has none (memory, Redis).
   */
  @Nullable String jdbcUrl() {
    return null;
  }

  /**
   * A table name beside the store's own tables: in the run's schema on PostgreSQL, as given
   * elsewhere.
   */
  String besideStore(String table) {
    return table;
  }

  /** What else a reader of the results must know about how the store ran; empty if nothing. */
  String note() {
    return "";
  }

  /**
   * Releases the store and removes what the run left; only the first call does anything, so the end
   * of a run and a shutdown hook may both call it.
   */
  @Override
  public final synchronized void close() throws Exception {
    if (closed) return;
    closed = true;
    release();
  }

  /** Whether {@link #close()} has been called. */
  final synchronized boolean closed() {
    return closed;
  }

  /** Closes the store and removes what the run left; called once. */
  abstract void release() throws Exception;

  /**
   * Opens an empty store.
   *
   * @param kind {@code memory}, {@code sqlite}, {@code postgres}, {@code mariadb} or {@code redis}
   * @param where the servers' addresses
   * @return the store
   * @throws IllegalArgumentException for an unknown kind or a malformed address
   * @throws UnreachableException if the store's server cannot be reached
   */
  static BenchStore open(String kind, Where where) throws Exception {
    return switch (kind) {
      case "memory" -> new Memory();
      case "sqlite" -> new Sqlite();
      case "postgres" -> new Postgres(where.postgresUrl());
      case "mariadb" -> new MariaDb(where.mariadbUrl());
      case "redis" -> new Redis(where.redisUri());
      default -> throw unknown(kind);
    };
  }

  /**
   * Checks, without creating anything, that a store can be opened: its server answers and takes the
   * login. Nothing to check for {@code memory} and {@code sqlite}.
   *
   * @param kind {@code memory}, {@code sqlite}, {@code postgres}, {@code mariadb} or {@code redis}
   * @param where the servers' addresses
   * @throws IllegalArgumentException for an unknown kind or a malformed address
   * @throws UnreachableException if the store's server cannot be reached
   */
  static void check(String kind, Where where) throws UnreachableException {
    switch (kind) {
      case "memory", "sqlite" -> {}
      case "postgres" -> Postgres.reach(where.postgresUrl());
      case "mariadb" -> MariaDb.reach(where.mariadbUrl());
      case "redis" -> Redis.reach(where.redisUri());
      default -> throw unknown(kind);
    }
  }

  private static IllegalArgumentException unknown(String kind) {
    return new IllegalArgumentException(
        "--store must be memory, sqlite, postgres, mariadb or redis, but was '" + kind + "'");
  }

  /**
   * Why a connection failed, in a few words: the innermost cause, named when it is a common one.
   */
  static String reason(Throwable e) {
    Throwable root = e;
    for (int depth = 0; root.getCause() != null && root.getCause() != root && depth < 20; depth++)
      root = root.getCause();
    if (root instanceof ConnectException) return "connection refused";
    if (root instanceof UnknownHostException) return "unknown host " + root.getMessage();
    if (root instanceof SocketTimeoutException) return "timed out";
    String message =
        root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
    return message.lines().findFirst().orElse(message).trim();
  }

  private static final class Memory extends BenchStore {
    private final MemoryStore store = new MemoryStore();

    @Override
    StateStore store() {
      return store;
    }

    @Override
    RawStore raw() {
      // A map under one lock: what keeping the rows on the heap costs, with nothing around it.
      Map<String, RawStore.Row> rows = new HashMap<>();
      return new RawStore() {
        @Override
        public synchronized void upsert(List<Row> batch) {
          for (Row r : batch) rows.put(r.identity(), r);
        }

        @Override
        public synchronized int select(List<String> identities) {
          int found = 0;
          for (String id : identities) if (rows.get(id) != null) found++;
          return found;
        }

        @Override
        public synchronized void delete(List<String> identities) {
          for (String id : identities) rows.remove(id);
        }

        @Override
        public void close() {
          rows.clear();
        }
      };
    }

    @Override
    String version() {
      return "MemoryStore (on the heap)";
    }

    @Override
    void release() {}
  }

  private static final class Sqlite extends BenchStore {
    private final Path dir = Files.createTempDirectory("watukuy-bench");
    private final SqliteStore store = SqliteStore.open(dir.resolve("store.db"));

    Sqlite() throws IOException {}

    @Override
    StateStore store() {
      return store;
    }

    @Override
    RawStore raw() throws SQLException {
      Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("raw.db"));
      try (Statement s = c.createStatement()) {
        // SqliteStore's settings (SqliteStore#configure): WAL, synchronous NORMAL.
        s.execute("PRAGMA journal_mode = WAL");
        s.execute("PRAGMA synchronous = NORMAL");
      }
      return new JdbcRawStore(c, "raw_items");
    }

    @Override
    CommitFloor commitFloor() throws SQLException {
      return CommitFloor.sqlite(dir.resolve("floor.db"));
    }

    @Override
    String jdbcUrl() {
      return "jdbc:sqlite:" + dir.resolve("store.db");
    }

    @Override
    String version() throws SQLException {
      try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:");
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("select sqlite_version()")) {
        rs.next();
        return "SQLite " + rs.getString(1) + " (sqlite-jdbc " + Versions.of("sqlite-jdbc") + ")";
      }
    }

    @Override
    void release() throws IOException {
      store.close();
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
      }
    }
  }

  private static final class Postgres extends BenchStore {
    // A schema of its own per run: two runs (or a run and the smoke test) never share tables.
    private final String schema =
        "watukuy_bench_" + Long.toHexString(System.nanoTime() ^ ProcessHandle.current().pid());
    private final String url;
    private final HikariDataSource pool;
    private final PostgresStore store;
    private final ScheduledExecutorService analyzer;
    private final String note;

    Postgres(String url) throws SQLException, UnreachableException {
      reach(url);
      this.url = url;
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(url);
      config.setPoolName("watukuy-bench");
      config.setMaximumPoolSize(4);
      config.setMinimumIdle(1);
      pool = new HikariDataSource(config);
      store = PostgresStore.builder(pool).schema(schema).build();
      store.migrate();
      boolean autovacuum;
      try (Connection c = DriverManager.getConnection(url);
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("show autovacuum")) {
        rs.next();
        autovacuum = rs.getString(1).equals("on");
      }
      if (autovacuum) {
        analyzer = null;
        note = "autovacuum on";
      } else {
        // Without autovacuum nothing analyzes the tables (the planner then guesses from no
        // statistics) and nothing removes the outbox rows deleted by acks, whose dead tuples make
        // every later ack slower (1 ms per ack at 1 M items, 10 ms in the re-scan after it). A
        // server in production vacuums and analyzes a busy table within its naptime (1 min by
        // default); the bench stands in for it, on both the store's tables and the baseline's.
        note =
            "autovacuum off on the server: the bench runs VACUUM ANALYZE on its schema's tables every 10 s";
        analyzer =
            Executors.newSingleThreadScheduledExecutor(
                r -> {
                  Thread t = new Thread(r, "bench-analyze");
                  t.setDaemon(true);
                  return t;
                });
        analyzer.scheduleWithFixedDelay(this::analyze, 10, 10, TimeUnit.SECONDS);
      }
    }

    /**
     * Connects once and disconnects.
     *
     * @throws IllegalArgumentException if {@code url} is not a {@code jdbc:postgresql:} URL
     * @throws UnreachableException if the server does not answer or refuses the login
     */
    static void reach(String url) throws UnreachableException {
      Properties parsed =
          url.startsWith("jdbc:postgresql:") ? Driver.parseURL(url, new Properties()) : null;
      if (parsed == null)
        throw new IllegalArgumentException(
            "--postgres-url must be a jdbc:postgresql: URL, such as " + BenchMain.POSTGRES_URL);
      String at =
          parsed.getProperty("PGHOST", "localhost") + ":" + parsed.getProperty("PGPORT", "5432");
      try (Connection c = DriverManager.getConnection(url)) {
        c.isValid(10);
      } catch (SQLException e) {
        boolean network = e.getSQLState() != null && e.getSQLState().startsWith("08");
        throw new UnreachableException(
            network
                ? "cannot reach PostgreSQL at "
                    + at
                    + " ("
                    + reason(e)
                    + "); start it with scripts/services or pass"
                    + " --postgres-url"
                : "PostgreSQL at "
                    + at
                    + " refused the connection ("
                    + reason(e)
                    + "); check --postgres-url",
            e);
      }
    }

    private void analyze() {
      try (Connection c = DriverManager.getConnection(url);
          Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "select tablename from pg_tables where schemaname = '" + schema + "'")) {
        List<String> tables = new ArrayList<>();
        while (rs.next()) tables.add(rs.getString(1));
        for (String t : tables) s.execute("VACUUM ANALYZE " + schema + "." + t);
      } catch (SQLException e) {
        // A table dropped between the listing and its turn (the baseline's, between phases).
        if (!"42P01".equals(e.getSQLState()))
          System.err.println("watukuy-bench: VACUUM ANALYZE failed: " + e.getMessage());
      }
    }

    @Override
    String note() {
      return note;
    }

    @Override
    StateStore store() {
      return store;
    }

    @Override
    RawStore raw() throws SQLException {
      // The server's default durability (synchronous_commit on), as the store runs with.
      return new JdbcRawStore(DriverManager.getConnection(url), schema + ".raw_items");
    }

    @Override
    CommitFloor commitFloor() throws SQLException {
      return CommitFloor.postgres(DriverManager.getConnection(url), schema);
    }

    @Override
    String jdbcUrl() {
      return url;
    }

    @Override
    String besideStore(String table) {
      return schema + "." + table;
    }

    @Override
    String version() throws SQLException {
      try (Connection c = DriverManager.getConnection(url);
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("show server_version")) {
        rs.next();
        return "PostgreSQL " + rs.getString(1) + " (pgjdbc " + Versions.of("postgresql") + ")";
      }
    }

    @Override
    void release() throws SQLException, InterruptedException {
      if (analyzer != null) {
        analyzer.shutdownNow();
        analyzer.awaitTermination(30, TimeUnit.SECONDS);
      }
      store.close();
      // The pool first: closing it aborts the connections a still-running engine holds (when a
      // shutdown hook gets here), so their locks do not hold up the drop.
      pool.close();
      try (Connection c = DriverManager.getConnection(url);
          Statement s = c.createStatement()) {
        s.execute("SET lock_timeout = '30s'");
        s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      }
    }
  }

  private static final class MariaDb extends BenchStore {
    // A table prefix of its own per run, in the URL's database: two runs never share tables, and
    // the user needs no right to create databases.
    private final String prefix =
        "wkb_" + Long.toHexString(System.nanoTime() ^ ProcessHandle.current().pid()) + "_";
    private final String url;
    private final HikariDataSource pool;
    private final MariaDbStore store;

    MariaDb(String url) throws UnreachableException {
      reach(url);
      this.url = url;
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(url);
      config.setPoolName("watukuy-bench");
      config.setMaximumPoolSize(4);
      config.setMinimumIdle(1);
      pool = new HikariDataSource(config);
      store = MariaDbStore.builder(pool).tablePrefix(prefix).build();
      store.migrate();
    }

    /**
     * Connects once and disconnects.
     *
     * @throws IllegalArgumentException if {@code url} is not a {@code jdbc:mariadb:} URL
     * @throws UnreachableException if the server does not answer or refuses the login
     */
    static void reach(String url) throws UnreachableException {
      if (!url.startsWith("jdbc:mariadb:"))
        throw new IllegalArgumentException(
            "--mariadb-url must be a jdbc:mariadb: URL, such as " + BenchMain.MARIADB_URL);
      String at = url.replaceFirst("^jdbc:mariadb://([^/?]*).*$", "$1");
      try (Connection c = DriverManager.getConnection(url)) {
        c.isValid(10);
      } catch (SQLException e) {
        String reason = reason(e);
        boolean refused = e.getSQLState() != null && e.getSQLState().startsWith("28");
        throw new UnreachableException(
            refused
                ? "MariaDB at "
                    + at
                    + " refused the connection ("
                    + reason
                    + "); check --mariadb-url"
                : "cannot reach MariaDB at "
                    + at
                    + " ("
                    + reason
                    + "); start it with scripts/services or pass --mariadb-url",
            e);
      }
    }

    @Override
    StateStore store() {
      return store;
    }

    @Override
    RawStore raw() throws SQLException {
      // The server's default durability (innodb_flush_log_at_trx_commit), as the store runs with.
      return new JdbcRawStore(
          DriverManager.getConnection(url),
          "`" + prefix + "raw_items`",
          JdbcRawStore.Flavor.MARIADB);
    }

    @Override
    CommitFloor commitFloor() throws SQLException {
      return CommitFloor.mariadb(DriverManager.getConnection(url), prefix);
    }

    @Override
    String version() throws SQLException {
      try (Connection c = DriverManager.getConnection(url);
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT VERSION()")) {
        rs.next();
        return "MariaDB "
            + rs.getString(1)
            + " (Connector/J "
            + Versions.of("mariadb-java-client")
            + ")";
      }
    }

    @Override
    void release() throws SQLException {
      store.close();
      // The pool first: closing it ends the connections a still-running engine holds (when a
      // shutdown hook gets here), so their locks do not hold up the drops.
      pool.close();
      try (Connection c = DriverManager.getConnection(url);
          Statement s = c.createStatement()) {
        List<String> tables = new ArrayList<>();
        try (ResultSet rs =
            s.executeQuery(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()"
                    + " AND table_name LIKE '"
                    + prefix.replace("_", "\\_")
                    + "%'")) {
          while (rs.next()) tables.add(rs.getString(1));
        }
        for (String t : tables) s.execute("DROP TABLE IF EXISTS `" + t + "`");
      }
    }
  }

  private static final class Redis extends BenchStore {
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final String prefix = "watukuy-bench:" + Long.toHexString(System.nanoTime()) + ":";
    private final RedisStore store;
    private final List<StatefulRedisConnection<String, String>> extra = new ArrayList<>();

    Redis(String uri) throws UnreachableException {
      RedisURI parsed = parse(uri);
      parsed.setTimeout(Duration.ofSeconds(60));
      client = RedisClient.create(parsed);
      connection = connect(client, parsed);
      store =
          RedisStore.builder(LettuceRedis.of(connection, RedisURI.create(uri)))
              .prefix(prefix)
              .build();
    }

    /**
     * Connects once, pings and disconnects.
     *
     * @throws IllegalArgumentException if {@code uri} is not a Redis URI
     * @throws UnreachableException if the server does not answer or refuses the login
     */
    static void reach(String uri) throws UnreachableException {
      RedisURI parsed = parse(uri);
      parsed.setTimeout(Duration.ofSeconds(10));
      RedisClient client = RedisClient.create(parsed);
      connect(client, parsed).close();
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

    private static RedisURI parse(String uri) {
      if (!uri.matches("(?i)rediss?(-socket|-sentinel)?(\\+[a-z]+)?://.+"))
        throw new IllegalArgumentException(
            "--redis-uri must be a redis:// URI, such as " + BenchMain.REDIS_URI);
      try {
        return RedisURI.create(uri);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "--redis-uri is not a valid Redis URI: " + e.getMessage());
      }
    }

    /** A connection that answered a PING; on failure the client is shut down. */
    private static StatefulRedisConnection<String, String> connect(
        RedisClient client, RedisURI parsed) throws UnreachableException {
      try {
        StatefulRedisConnection<String, String> c = client.connect();
        c.sync().ping();
        return c;
      } catch (RuntimeException e) {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        String at =
            parsed.getSocket() != null
                ? parsed.getSocket()
                : parsed.getHost() + ":" + parsed.getPort();
        throw new UnreachableException(
            "cannot reach Redis at "
                + at
                + " ("
                + reason(e)
                + "); start it with"
                + " scripts/services or pass --redis-uri",
            e);
      }
    }

    @Override
    StateStore store() {
      return store;
    }

    @Override
    RawStore raw() {
      StatefulRedisConnection<String, String> c = client.connect();
      extra.add(c);
      // One MULTI/EXEC per call, pipelined: the items hash and its identity index, like the store.
      String items = prefix + "raw:items";
      String ids = prefix + "raw:items:ids";
      RedisAsyncCommands<String, String> a = c.async();
      return new RawStore() {
        @Override
        public void upsert(List<Row> rows) throws Exception {
          Map<String, String> fields = new LinkedHashMap<>();
          List<ScoredValue<String>> members = new ArrayList<>(rows.size());
          for (Row r : rows) {
            fields.put(
                r.identity(),
                r.version() + "|" + r.hash() + "|1|" + r.identity() + "|" + r.seenAt());
            members.add(ScoredValue.just(0, r.identity()));
          }
          c.setAutoFlushCommands(false);
          try {
            a.multi();
            a.hset(items, fields);
            @SuppressWarnings({"unchecked", "rawtypes"})
            ScoredValue<String>[] array = members.toArray(new ScoredValue[0]);
            a.zadd(ids, array);
            RedisFuture<TransactionResult> exec = a.exec();
            c.flushCommands();
            exec.get(60, TimeUnit.SECONDS);
          } finally {
            c.setAutoFlushCommands(true);
          }
        }

        @Override
        public int select(List<String> identities) throws Exception {
          int found = 0;
          for (var kv : c.sync().hmget(items, identities.toArray(new String[0])))
            if (kv.hasValue()) found++;
          return found;
        }

        @Override
        public void delete(List<String> identities) throws Exception {
          String[] array = identities.toArray(new String[0]);
          c.setAutoFlushCommands(false);
          try {
            a.multi();
            a.hdel(items, array);
            a.zrem(ids, array);
            RedisFuture<TransactionResult> exec = a.exec();
            c.flushCommands();
            exec.get(60, TimeUnit.SECONDS);
          } finally {
            c.setAutoFlushCommands(true);
          }
        }

        @Override
        public void close() {
          c.sync().del(items, ids);
        }
      };
    }

    @Override
    String version() {
      String info = connection.sync().info("server");
      for (String line : info.split("\r?\n")) {
        if (line.startsWith("redis_version:"))
          return "Redis "
              + line.substring("redis_version:".length()).trim()
              + " (Lettuce "
              + Versions.of("lettuce")
              + ")";
      }
      return "Redis (version unknown)";
    }

    @Override
    void release() {
      store.close();
      // The engine's and the baseline's connections first, so that nothing writes a key after the
      // scan (when a shutdown hook gets here while the engine still runs).
      extra.forEach(StatefulRedisConnection::close);
      connection.close();
      try (StatefulRedisConnection<String, String> c = client.connect()) {
        List<String> keys = new ArrayList<>();
        ScanIterator.scan(c.sync(), ScanArgs.Builder.matches(prefix + "*").limit(1000))
            .forEachRemaining(keys::add);
        for (int i = 0; i < keys.size(); i += 500)
          c.sync().del(keys.subList(i, Math.min(keys.size(), i + 500)).toArray(new String[0]));
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }
}
