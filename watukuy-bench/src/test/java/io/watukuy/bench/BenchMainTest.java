package io.watukuy.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.time.LocalDate;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The bench's command line: what it refuses before running anything, the names of its result files,
 * its ratios, and its one-line answer for a server that is not there. Nothing here runs a
 * benchmark.
 */
class BenchMainTest {
  private static final LocalDate DAY = LocalDate.of(2026, 11, 30);

  @Test
  void refusesBadOptionsAsUsageErrors() {
    assertThatThrownBy(
            () ->
                BenchMain.run(
                    new String[] {"e2e", "--store", "memory", "--tiny", "--items", "5000"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--tiny or --items, not both");
    assertThatThrownBy(
            () -> BenchMain.run(new String[] {"e2e", "--store", "memory", "--items", "abc"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--items must be a whole number >= 1000, but was 'abc'");
    assertThatThrownBy(
            () -> BenchMain.run(new String[] {"e2e", "--store", "memory", "--items", "999"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(">= 1000");
    assertThatThrownBy(
            () -> BenchMain.run(new String[] {"e2e", "--store", "memory", "--live-samples", "0"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--live-samples must be a whole number >= 1");
    assertThatThrownBy(
            () -> BenchMain.run(new String[] {"e2e", "--store", "memory", "--concurrency", "0"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--concurrency must be a whole number >= 1");
    assertThatThrownBy(() -> BenchMain.run(new String[] {"e2e", "--store", "mysql"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("but was 'mysql'");
    assertThatThrownBy(
            () ->
                BenchMain.run(
                    new String[] {
                      "e2e", "--store", "postgres", "--postgres-url", "postgresql://127.0.0.1/test"
                    }))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be a jdbc:postgresql: URL");
    assertThatThrownBy(
            () ->
                BenchMain.run(
                    new String[] {
                      "e2e", "--store", "mariadb", "--mariadb-url", "mysql://127.0.0.1/test"
                    }))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--mariadb-url must be a jdbc:mariadb: URL");
    assertThatThrownBy(
            () ->
                BenchMain.run(
                    new String[] {
                      "e2e", "--store", "redis", "--check", "--redis-uri", "http://127.0.0.1:6379"
                    }))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--redis-uri must be a redis:// URI");
  }

  @Test
  void checkOfAStoreWithoutAServerRunsNothing() throws Exception {
    assertThat(BenchMain.run(new String[] {"e2e", "--check", "--store", "memory", "--tiny"}))
        .isZero();
    assertThat(
            BenchMain.run(
                new String[] {"e2e", "--check", "--store", "sqlite", "--items", "1000000"}))
        .isZero();
  }

  @Test
  void aServerThatIsNotThereIsOneLine() throws Exception {
    int port = closedPort();

    assertThatThrownBy(
            () ->
                BenchStore.check(
                    "postgres",
                    new BenchStore.Where(
                        "jdbc:postgresql://127.0.0.1:" + port + "/test?user=postgres",
                        BenchMain.REDIS_URI,
                        BenchMain.MARIADB_URL)))
        .isInstanceOf(BenchStore.UnreachableException.class)
        .hasMessage(
            "cannot reach PostgreSQL at 127.0.0.1:"
                + port
                + " (connection refused); start it with"
                + " scripts/services or pass --postgres-url");
    assertThatThrownBy(
            () ->
                BenchStore.check(
                    "redis",
                    new BenchStore.Where(
                        BenchMain.POSTGRES_URL,
                        "redis://127.0.0.1:" + port + "/0",
                        BenchMain.MARIADB_URL)))
        .isInstanceOf(BenchStore.UnreachableException.class)
        .hasMessage(
            "cannot reach Redis at 127.0.0.1:"
                + port
                + " (connection refused); start it with"
                + " scripts/services or pass --redis-uri");
    assertThatThrownBy(
            () ->
                BenchStore.check(
                    "mariadb",
                    new BenchStore.Where(
                        BenchMain.POSTGRES_URL,
                        BenchMain.REDIS_URI,
                        "jdbc:mariadb://127.0.0.1:" + port + "/test?user=root")))
        .isInstanceOf(BenchStore.UnreachableException.class)
        .hasMessageStartingWith("cannot reach MariaDB at 127.0.0.1:" + port + " (")
        .hasMessageEndingWith("); start it with scripts/services or pass --mariadb-url");
  }

  @Test
  void aRunThatIsNotTheFullOneNamesWhatDiffers() {
    EndToEnd.Settings full = EndToEnd.Settings.full(BenchMain.DEFAULT_ITEMS);
    EndToEnd.Settings tiny = EndToEnd.Settings.tiny();

    assertThat(BenchMain.resultName(DAY, "memory", false, full))
        .isEqualTo("2026-11-30-memory.json");
    assertThat(BenchMain.resultName(DAY, "sqlite", false, EndToEnd.Settings.full(1_000_000)))
        .isEqualTo("2026-11-30-sqlite-1000000items.json");
    assertThat(
            BenchMain.resultName(
                DAY,
                "memory",
                false,
                full.withGroups(groups(EndToEnd.Group.LIVE, EndToEnd.Group.IDLE))))
        .isEqualTo("2026-11-30-memory-live-idle.json");
    // --items means nothing to a run without the listing's phases.
    assertThat(
            BenchMain.resultName(
                DAY,
                "memory",
                false,
                EndToEnd.Settings.full(5_000).withGroups(groups(EndToEnd.Group.IDLE))))
        .isEqualTo("2026-11-30-memory-idle.json");
    assertThat(BenchMain.resultName(DAY, "redis", true, tiny))
        .isEqualTo("2026-11-30-redis-tiny.json");
    assertThat(
            BenchMain.resultName(
                DAY,
                "redis",
                true,
                tiny.withGroups(groups(EndToEnd.Group.IDLE))
                    .withIdle(tiny.idle().withShape(IdleKeys.Shape.POLLERS))))
        .isEqualTo("2026-11-30-redis-tiny-idle-pollers.json");
    assertThat(BenchMain.resultName(DAY, "postgres", false, full.withConcurrency(1)))
        .isEqualTo("2026-11-30-postgres-concurrency1.json");
    assertThat(BenchMain.resultName(DAY, "sqlite", false, full.withHandler("single", 100)))
        .isEqualTo("2026-11-30-sqlite-single.json");
    assertThat(BenchMain.resultName(DAY, "sqlite", false, full.withHandler("batch", 10)))
        .isEqualTo("2026-11-30-sqlite-batch10.json");
  }

  @Test
  void ratiosKeepThreeSignificantDigits() {
    assertThat(
            List.of(0.004123, 0.85, 1.0, 20.0, 12.34, 1234.0, 0.0, Double.NaN).stream()
                .map(Ratios::format))
        .containsExactly("0.00412", "0.850", "1.00", "20.0", "12.3", "1230", "0", "-");
  }

  @Test
  void withoutTheListingsPhasesAResultHasNoItems() {
    EndToEnd.Result live =
        new EndToEnd.Result(
            "memory",
            "MemoryStore",
            "",
            groups(EndToEnd.Group.LIVE),
            100_000,
            8,
            "batch",
            100,
            Double.NaN,
            List.of(),
            null,
            null,
            null,
            "0.1",
            "0.1");

    assertThat(E2eReport.json(live).has("items")).isFalse();
    assertThat(E2eReport.json(live).get("phaseGroups").toString()).isEqualTo("[\"live\"]");
    assertThat(E2eReport.table(live)).doesNotContain("100,000");
  }

  @Test
  void theSinksCommandRefusesBadOptionsBeforeRunningAnything() {
    assertThatThrownBy(() -> BenchMain.run(new String[] {"sinks", "--sinks", "kafka,redis"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--sinks: unknown sink 'redis'");
    assertThatThrownBy(() -> BenchMain.run(new String[] {"sinks", "--sinks", ","}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--sinks needs at least one of");
    assertThatThrownBy(() -> BenchMain.run(new String[] {"sinks", "--events", "99"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--events must be a whole number >= 100, but was '99'");
    assertThatThrownBy(() -> BenchMain.run(new String[] {"sinks", "--runs", "0"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--runs must be a whole number >= 1");
    assertThatThrownBy(() -> BenchMain.run(new String[] {"sinks", "--store", "memory"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown option '--store' for sinks");
  }

  @Test
  void theSinksResultsFileIsNamedAfterWhatDiffersFromTheFullRun() {
    List<String> all = SinkTargets.parse("kafka,table,rabbitmq,nats,webhook,file");
    // table stands for its four rows: PostgreSQL and SQLite, without and with sameDatabase
    assertThat(all).hasSize(9).contains("table-postgres-same", "table-sqlite");
    assertThat(BenchMain.sinksResultName(DAY, false, all, SinkBench.Settings.full()))
        .isEqualTo("2026-11-30-sinks.json");
    assertThat(BenchMain.sinksResultName(DAY, true, all, SinkBench.Settings.tiny()))
        .isEqualTo("2026-11-30-sinks-tiny.json");
    assertThat(
            BenchMain.sinksResultName(
                DAY,
                false,
                SinkTargets.parse("kafka,table-postgres"),
                new SinkBench.Settings(5000, 1, 100, 8)))
        .isEqualTo("2026-11-30-sinks-kafka-table-postgres-5000events-runs1.json");
  }

  private static Set<EndToEnd.Group> groups(EndToEnd.Group first, EndToEnd.Group... rest) {
    return EnumSet.of(first, rest);
  }

  /** A loopback port nothing listens on: one just closed. */
  private static int closedPort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
