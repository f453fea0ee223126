package io.watukuy.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.PollerKey;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.StatePatch;
import io.watukuy.testing.TestPostgres;
import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The round trips of a page commit on the local PostgreSQL: each statement execution and each
 * commit or rollback is one (pgjdbc sends the {@code BEGIN} with the first statement). A page of
 * 500 items and events costs the key's locked read, one statement for state and rows, and the
 * commit.
 */
class PostgresRoundTripsTest {
  private static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");
  private static final PollerKey KEY = PollerKey.of("orders", "eu");
  private static final Set<String> TRIPS =
      Set.of(
          "execute",
          "executeQuery",
          "executeUpdate",
          "executeBatch",
          "executeLargeUpdate",
          "executeLargeBatch",
          "commit",
          "rollback");

  @RegisterExtension static final TestPostgres postgres = TestPostgres.local();

  private static HikariDataSource pool;

  private final AtomicInteger trips = new AtomicInteger();
  private final List<String> statements = new ArrayList<>();
  private final List<PostgresStore> opened = new ArrayList<>();

  @BeforeAll
  static void openPool() {
    pool = PgTest.pool(postgres, PgTest.unique("wk_trips").replace('_', '-'), 2);
  }

  @AfterEach
  void close() {
    opened.forEach(PostgresStore::close);
  }

  @Test
  void aPageOf500IsThreeRoundTripsWithOrWithoutTheLog() {
    PostgresStore store = store();
    Lease lease = store.acquireLease(KEY, "a", Duration.ofSeconds(30), T0).orElseThrow();

    int first = commitCounting(store, lease, page(0, 1, false), T0);
    int logged = commitCounting(store, lease, page(500, 501, true), T0.plusSeconds(1));

    assertThat(first).as("statements: %s", statements).isEqualTo(3);
    assertThat(logged).as("statements: %s", statements).isEqualTo(3);
    assertThat(store.countItems(KEY)).isEqualTo(1_000);
    assertThat(store.countPending(KEY)).isEqualTo(1_000);
    assertThat(store.loadState(KEY).orElseThrow().lastSequence()).isEqualTo(1_000);
  }

  @Test
  void deletesAddTheirOwnStatement() {
    PostgresStore store = store();
    Lease lease = store.acquireLease(KEY, "a", Duration.ofSeconds(30), T0).orElseThrow();
    commitCounting(store, lease, page(0, 1, false), T0);
    CommitBatch withDeletes =
        new CommitBatch(
            StatePatch.NONE.withLastSequence(501),
            List.of(item(9_000)),
            List.of(id(0), id(1)),
            List.of(event(501)),
            false,
            List.of());

    int trips = commitCounting(store, lease, withDeletes, T0.plusSeconds(1));

    assertThat(trips).as("statements: %s", statements).isEqualTo(4);
    assertThat(store.loadVersions(KEY, List.of(id(0), id(1), id(2), id(9_000))))
        .containsOnlyKeys(id(2), id(9_000));
  }

  private PostgresStore store() {
    PostgresStore store =
        PostgresStore.builder(counting(pool)).schema(postgres.newSchema("wk_trips")).build();
    opened.add(store);
    store.migrate();
    return store;
  }

  private int commitCounting(PostgresStore store, Lease lease, CommitBatch batch, Instant now) {
    statements.clear();
    int before = trips.get();
    store.commitPoll(KEY, lease, batch, now);
    return trips.get() - before;
  }

  private static CommitBatch page(int from, long firstSequence, boolean log) {
    List<ItemRow> items = IntStream.range(from, from + 500).mapToObj(i -> item(i)).toList();
    List<OutboxRow> events =
        IntStream.range(0, 500).mapToObj(i -> event(firstSequence + i)).toList();
    return new CommitBatch(
        new StatePatch(Map.of("live", "\"" + (from + 500) + "\""), null, 1, firstSequence + 499),
        items,
        List.of(),
        events,
        log,
        List.of());
  }

  private static String id(int i) {
    return "i-" + i;
  }

  private static ItemRow item(int i) {
    return new ItemRow(id(i), "v1", "0".repeat(64), 1, "{\"id\":" + i + "}", "ok-" + i, T0);
  }

  private static OutboxRow event(long sequence) {
    return OutboxRow.pending(
        sequence, "evt-" + sequence, "ok-" + sequence, "{\"sequence\":" + sequence + "}", T0);
  }

  /** The pool, with every connection and statement counting its round trips. */
  private DataSource counting(DataSource target) {
    return new DataSource() {
      @Override
      public Connection getConnection() throws SQLException {
        return wrap(target.getConnection(), Connection.class);
      }

      @Override
      public Connection getConnection(String user, String password) throws SQLException {
        return wrap(target.getConnection(user, password), Connection.class);
      }

      @Override
      public PrintWriter getLogWriter() throws SQLException {
        return target.getLogWriter();
      }

      @Override
      public void setLogWriter(PrintWriter out) throws SQLException {
        target.setLogWriter(out);
      }

      @Override
      public void setLoginTimeout(int seconds) throws SQLException {
        target.setLoginTimeout(seconds);
      }

      @Override
      public int getLoginTimeout() throws SQLException {
        return target.getLoginTimeout();
      }

      @Override
      public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return target.getParentLogger();
      }

      @Override
      public <T> T unwrap(Class<T> iface) throws SQLException {
        return target.unwrap(iface);
      }

      @Override
      public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return target.isWrapperFor(iface);
      }
    };
  }

  private <T> T wrap(T target, Class<T> type) {
    InvocationHandler handler =
        (proxy, method, args) -> {
          if (TRIPS.contains(method.getName())) {
            trips.incrementAndGet();
          }
          Object result;
          try {
            result = method.invoke(target, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
          if (method.getName().equals("prepareStatement") && args != null) {
            statements.add(String.valueOf(args[0]));
            return wrap((PreparedStatement) result, PreparedStatement.class);
          }
          if (method.getName().equals("createStatement")) {
            return wrap((Statement) result, Statement.class);
          }
          return result;
        };
    return type.cast(
        Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, handler));
  }
}
