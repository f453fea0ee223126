package io.watukuy.sink.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.ChangeEvent;
import io.watukuy.ConfigException;
import io.watukuy.Handler;
import io.watukuy.HandlerUnavailableException;
import io.watukuy.PollerKey;
import io.watukuy.sink.HandOff;
import io.watukuy.sink.Sink;
import io.watukuy.spi.StateStore;
import io.watukuy.store.jdbc.CallerWork;
import io.watukuy.store.jdbc.JdbcStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Writes a poller's events into a database table: PostgreSQL, MariaDB or SQLite (sink type {@code
 * table}; docs/sinks.md, "Database tables").
 *
 * <p><b>Insert mode</b> (the default) writes a row per event with the mapped columns ({@link
 * TableSettings#columns()}); the column mapped to {@code deliveryKey} must be unique, and a row
 * whose delivery key is already there (a batch delivered again after a crash, G9) is kept or
 * overwritten ({@link OnConflict}). An item that goes A → B → A gives three rows: the delivery key
 * differs where the event id repeats (G2). <b>Mirror mode</b> keeps one row per item, keyed by the
 * column mapped to {@code identity}: created and updated upsert it when the stored sequence is
 * lower, deleted deletes it.
 *
 * <p><b>Transactions.</b> One batch is one transaction: every row of it or none. With {@code
 * sameDatabase: true} the table lives in the store's own database and the batch's rows and its ack
 * commit in one store transaction fenced by the batch's lease ({@link JdbcStore#ackWithin}): a
 * crash never repeats or loses a row of that table — exactly-once into it, and only there.
 * Otherwise the sink has its own connections (a HikariCP pool on {@code url}, at most 4) and a
 * crash between its commit and the engine's ack repeats at most {@code concurrency × batchSize}
 * events, which the delivery-key conflict absorbs.
 *
 * <p><b>Failures.</b> The database down or busy (SQLState classes 08, 40, 53, 57, a busy SQLite
 * file) is {@link HandlerUnavailableException}: the batch stays pending, never parked (G1). A row
 * the database refuses (a value too long, a constraint) fails the batch's transaction; the sink
 * then writes the batch one event per transaction and reports each ordering key's first refused
 * event ({@link BatchResult#failed}), which is retried and then parked (G7), while the events
 * before it are written. A table or column that is missing, or a key column that is not unique, is
 * a {@link ConfigException} at {@link #open()} (or, for a name built from {@code {{source}}} or
 * {@code {{partition}}}, at the first batch of that key, as {@link HandlerUnavailableException}).
 *
 * <p>Thread-safe: batches of different keys, and of one key with no ordering key in common, are
 * written at once, each on a connection of its own (up to 4); on SQLite, which takes one writer at
 * a time, one after the other on one connection.
 *
 * @since 0.2
 */
public final class TableSink implements Sink {
  private static final int POOL_SIZE = 4;

  /**
   * SQLite takes one writer at a time: with one connection, batches wait their turn in the pool
   * instead of in SQLite's busy handler, whose sleeps (up to 100 ms each) cost more than the write.
   */
  private static final int SQLITE_POOL_SIZE = 1;

  private final TableSettings settings;
  private final @Nullable StateStore store;
  private final String name;
  private final Map<String, TableStatements> tables = new ConcurrentHashMap<>();
  private volatile @Nullable HikariDataSource pool;
  private volatile @Nullable TableDialect dialect;

  /**
   * A sink with its own connections ({@link TableSettings#url()}).
   *
   * @param settings the settings
   * @throws IllegalArgumentException when {@code settings} ask for {@code sameDatabase}, which
   *     needs the store: use {@link #TableSink(TableSettings, StateStore)}
   */
  public TableSink(TableSettings settings) {
    this(settings, null);
  }

  /**
   * A sink that may write in the store's database ({@link TableSettings#sameDatabase()}).
   *
   * @param settings the settings
   * @param store the engine's store; required with {@code sameDatabase} (a {@link JdbcStore}, the
   *     one the engine uses, checked at {@link #open()}, which refuses a null or non-SQL store with
   *     a {@link ConfigException}), ignored otherwise
   */
  public TableSink(TableSettings settings, @Nullable StateStore store) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.store = store;
    this.name =
        "table "
            + settings.table()
            + (settings.sameDatabase()
                ? " in the store's database"
                : " at " + where(Objects.requireNonNull(settings.url())));
  }

  /**
   * {@code table TABLE at HOST/DATABASE}, or {@code table TABLE in the store's database}: never a
   * user, password or URL parameter.
   */
  @Override
  public String name() {
    return name;
  }

  /**
   * Connects (or, with {@code sameDatabase}, checks the store is a SQL store) and checks the table:
   * it exists, has the mapped columns, and its key column is unique. A table named with {@code
   * {{source}}} or {@code {{partition}}} is checked at its first batch instead.
   *
   * @throws ConfigException naming this sink and what to fix
   * @throws Exception when the database cannot be reached now: retried at the next cycle
   */
  @Override
  public void open() throws Exception {
    if (settings.sameDatabase()) {
      if (!(store instanceof JdbcStore jdbc))
        throw new ConfigException(
            name
                + ": sameDatabase: true needs a SQL store (SQLite, PostgreSQL or MariaDB) to write in"
                + " its transaction, but the store is "
                + (store == null ? "none" : store.getClass().getSimpleName()));
      dialect = jdbc.withConnection("find the table sink's database", TableDialect::of);
    } else {
      String url = Objects.requireNonNull(settings.url());
      String noDriver = TableSettings.noDriver(url);
      // Waiting never brings a driver: "No suitable driver" (SQLState 08001) is not an outage.
      if (noDriver != null) throw new ConfigException(name + ": url " + noDriver);
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(settings.url());
      if (settings.user() != null) config.setUsername(settings.user());
      if (settings.password() != null) config.setPassword(settings.password());
      config.setMaximumPoolSize(
          Objects.requireNonNull(settings.url()).startsWith("jdbc:sqlite:")
              ? SQLITE_POOL_SIZE
              : POOL_SIZE);
      config.setMinimumIdle(0);
      config.setPoolName("watukuy-table-sink");
      // Fail now, with the driver's reason, rather than in the first batch.
      config.setInitializationFailTimeout(1);
      try {
        HikariDataSource ds = new HikariDataSource(config);
        pool = ds;
        try (Connection c = ds.getConnection()) {
          dialect = TableDialect.of(c);
        }
      } catch (RuntimeException | SQLException e) {
        closePool();
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        // A config error reads "sink NAME: WHY" (exit 2); "cannot start" is the outage's wording.
        if (SqlFailures.credentialsRefused(e))
          throw new ConfigException(
              "sink "
                  + name
                  + ": the database refused the credentials (user, password): "
                  + SqlFailures.describe(cause));
        if (cause instanceof SQLException sql && !SqlFailures.transientFailure(sql))
          throw new ConfigException("sink " + name + ": " + SqlFailures.describe(cause));
        // The driver's exception is not kept: its message or URL may carry the password.
        throw new HandlerUnavailableException(
            name + " cannot start: " + SqlFailures.describe(cause),
            new SQLException(SqlFailures.describe(cause)));
      }
    }
    if (settings.table().isConstant()) statements(settings.table().toString());
  }

  @Override
  public Health health() {
    try {
      return onConnection(c -> c.isValid(2)) ? Health.up() : Health.down(name + ": not reachable");
    } catch (Exception e) {
      return Health.down(name + ": " + SqlFailures.describe(e));
    }
  }

  @Override
  public BatchResult handle(List<ChangeEvent<Object>> events) throws Exception {
    if (events.isEmpty()) return BatchResult.ok();
    ChangeEvent<Object> first = events.get(0);
    TableStatements table = statements(settings.table().render(first.key()));
    try {
      write(first.key(), events, table);
      return BatchResult.ok();
    } catch (SQLException | io.watukuy.StoreException e) {
      if (SqlFailures.transientFailure(e))
        throw new HandlerUnavailableException(name + ": " + SqlFailures.describe(e), e);
    }
    // A row the database refused: find it, writing every event that comes before it.
    return oneByOne(first.key(), events, table);
  }

  private BatchResult oneByOne(PollerKey key, List<ChangeEvent<Object>> events, TableStatements t)
      throws Exception {
    BatchResult result = BatchResult.ok();
    Set<String> stopped = new HashSet<>();
    for (ChangeEvent<Object> e : events) {
      if (stopped.contains(e.orderingKey())) continue; // comes again after the failed one
      try {
        write(key, List.of(e), t);
      } catch (SQLException | io.watukuy.StoreException failure) {
        if (SqlFailures.transientFailure(failure))
          throw new HandlerUnavailableException(
              name + ": " + SqlFailures.describe(failure), failure);
        stopped.add(e.orderingKey());
        result =
            result.andFailed(
                e,
                new SQLException(
                    name + " refused " + e.deliveryKey() + ": " + SqlFailures.describe(failure)));
      }
    }
    return result;
  }

  /** One transaction: the rows, and with {@code sameDatabase} the ack of their sequences. */
  private void write(PollerKey key, List<ChangeEvent<Object>> events, TableStatements t)
      throws SQLException {
    if (settings.sameDatabase()) {
      HandOff handOff =
          Sink.handOff()
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          name
                              + ": sameDatabase: true writes only in a batch the engine handed"
                              + " over, under its lease"));
      if (!handOff.key().equals(key))
        throw new IllegalStateException(name + ": the batch is not of the key it was handed for");
      // A lease that may be gone is a refusal of the hand-off, not a failure of the events; the
      // fence below refuses a lost lease anyway, and nothing is written then.
      Handler.checkLease();
      List<Long> sequences = new ArrayList<>(events.size());
      for (ChangeEvent<Object> e : events) sequences.add(e.sequence());
      ((JdbcStore) Objects.requireNonNull(store))
          .ackWithin(
              key,
              handOff.lease(),
              sequences,
              c -> {
                t.write(c, events);
                return null;
              });
      return;
    }
    try (Connection c = Objects.requireNonNull(pool, "open() first").getConnection()) {
      c.setAutoCommit(false);
      try {
        t.write(c, events);
        // Right before the write that cannot be taken back (G5).
        Handler.checkLease();
        c.commit();
      } catch (SQLException | RuntimeException e) {
        try {
          c.rollback();
        } catch (SQLException ignored) {
          e.addSuppressed(ignored);
        }
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    }
  }

  /** The checked statements of a rendered table name, checking the table on first use. */
  private TableStatements statements(String rendered) throws Exception {
    TableStatements known = tables.get(rendered);
    if (known != null) return known;
    TableName table;
    try {
      table = TableName.parse(rendered);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(name + ": table " + e.getMessage());
    }
    TableDialect d = Objects.requireNonNull(dialect, "open() first");
    try {
      onConnection(
          c -> {
            TableCheck.check(c, d, table, settings, name);
            return null;
          });
    } catch (io.watukuy.StoreException e) {
      throw new HandlerUnavailableException(name + ": " + SqlFailures.describe(e), e);
    }
    TableStatements built = new TableStatements(d, table, settings);
    tables.put(rendered, built);
    return built;
  }

  private <T> T onConnection(CallerWork<T> work) throws SQLException {
    if (settings.sameDatabase())
      return ((JdbcStore) Objects.requireNonNull(store)).withConnection("check " + name, work);
    try (Connection c = Objects.requireNonNull(pool, "open() first").getConnection()) {
      return work.run(c);
    }
  }

  @Override
  public void close() {
    closePool();
  }

  private void closePool() {
    HikariDataSource p = pool;
    pool = null;
    if (p != null) p.close();
  }

  /** {@code host:port/database} of a JDBC URL: no user, password or parameter. */
  static String where(String url) {
    String rest = url.replaceFirst("(?i)^jdbc:[a-z0-9]+:", "");
    int cut = rest.length();
    for (char ch : new char[] {'?', ';'}) {
      int at = rest.indexOf(ch);
      if (at >= 0 && at < cut) cut = at;
    }
    rest = rest.substring(0, cut);
    return rest.replaceFirst("^//[^/@]*@", "//").replaceFirst("^//", "");
  }

  @Override
  public String toString() {
    return name;
  }
}
