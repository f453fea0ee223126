package io.watukuy.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import io.watukuy.TickReport;
import io.watukuy.Watukuy;
import io.watukuy.spi.StateStore;
import io.watukuy.testing.StoreEngineTest;
import io.watukuy.testing.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The engine scenarios on PostgresStore: one schema for the class, fresh tables (a table prefix)
 * per test, every client a store on the class's pool. Beyond them: a backend terminated mid-cycle.
 */
class PostgresEngineTest extends StoreEngineTest {
  @RegisterExtension static final TestPostgres postgres = TestPostgres.local();

  private static HikariDataSource pool;
  private static String schema;
  private static int prefixes;
  private String prefix;

  @BeforeAll
  static void openPool() {
    pool = PgTest.pool(postgres, PgTest.unique("watukuy-engine"), 4);
    schema = postgres.newSchema("wk_engine");
  }

  @BeforeEach
  void freshTables() {
    prefix = "e" + ++prefixes + "_";
  }

  @Override
  protected StateStore openStore() {
    return PostgresStore.builder(pool).schema(schema).tablePrefix(prefix).build();
  }

  @Test
  void aBackendTerminatedMidCycleFailsThatCycleAndTheNextTicksDeliverEverything() throws Exception {
    String application = PgTest.unique("watukuy-engine-terminated");
    for (int i = 1; i <= 4; i++) api().put("o" + i, Map.of("n", i));
    List<String> delivered = new ArrayList<>();
    List<CompletableFuture<Void>> killers = new ArrayList<>();
    try (HikariDataSource single = PgTest.pool(postgres, application, 1);
        PostgresStore store =
            PostgresStore.builder(single).schema(schema).tablePrefix(prefix).build()) {
      Poller<JsonNode> p = orders();
      Watukuy w =
          engine(store, "a", p)
              .on(
                  p,
                  e -> {
                    delivered.add(e.identity());
                    if (killers.isEmpty()) {
                      // Another session holds the key's row, so the engine's ack waits for it; the
                      // backend waiting there is terminated, as an administrator or a failover
                      // would.
                      killers.add(terminateWhileWaiting(application));
                    }
                  });

      TickReport first = w.tick();
      killers.get(0).get(30, TimeUnit.SECONDS);

      Throwable error = first.key(PollerKey.of("orders")).orElseThrow().error();
      assertThat(error)
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("postgres store 127.0.0.1:5432/test")
          .hasMessageContaining("ackEvents orders failed")
          .hasMessageContaining("57P01");
      assertThat(delivered).containsExactly("o1");
      // The failed cycle backs off; at most ten more ticks, 30 s apart, finish the work.
      for (int i = 0; i < 10; i++) {
        clock().advance(INTERVAL);
        if (w.tick().failed()) {
          throw new AssertionError("tick " + i + " after the failure failed");
        }
        if (delivered.containsAll(List.of("o1", "o2", "o3", "o4"))
            && store.countPending(PollerKey.of("orders")) == 0) {
          break;
        }
      }
      // o1 was delivered but not acknowledged: it comes again (at-least-once), then the rest.
      assertThat(delivered).containsExactly("o1", "o1", "o2", "o3", "o4");
      assertThat(store.countPending(PollerKey.of("orders"))).isZero();
    }
  }

  /**
   * Locks the pollers row of {@code orders} from a session of its own, then, on another thread,
   * waits until a backend of {@code application} waits for that lock, terminates it, and lets the
   * row go.
   */
  private CompletableFuture<Void> terminateWhileWaiting(String application) {
    Connection blocker;
    try {
      blocker = postgres.connect();
      blocker.setAutoCommit(false);
      try (Statement s = blocker.createStatement()) {
        s.executeQuery("SELECT 1 FROM \"" + schema + "\"." + prefix + "pollers FOR UPDATE").close();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return CompletableFuture.runAsync(
        () -> {
          try (blocker;
              Connection admin = postgres.connect();
              Statement s = admin.createStatement()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (true) {
              try (ResultSet rs =
                  s.executeQuery(
                      "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                          + " WHERE datname = 'test' AND application_name = '"
                          + application
                          + "'"
                          + " AND wait_event_type = 'Lock') t")) {
                rs.next();
                if (rs.getLong(1) > 0) break;
              }
              if (System.nanoTime() > deadline)
                throw new AssertionError("the engine never waited for the row lock");
              Thread.sleep(20);
            }
            blocker.rollback();
          } catch (SQLException | InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
  }
}
