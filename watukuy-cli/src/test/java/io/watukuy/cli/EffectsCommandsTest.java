package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.watukuy.PollerKey;
import io.watukuy.spi.EffectCursor;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.JournalEntry;
import io.watukuy.spi.Lease;
import io.watukuy.spi.StateStore;
import io.watukuy.store.sqlite.SqliteStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code watukuy effects} (docs/config.md, "Effects commands") on a SQLite store whose effect
 * tables are seeded through the EffectStore SPI as an engine would leave them, on a fixed clock.
 */
class EffectsCommandsTest {
  private static final Instant T0 = Instant.parse("2026-01-05T10:00:00Z");
  private static final Instant NOW = T0.plus(Duration.ofHours(1));
  private static final PollerKey ORDERS = PollerKey.of("orders");
  private static final PollerKey EU = PollerKey.of("accounts", "eu");
  private static final PollerKey US = PollerKey.of("accounts", "us");
  private static final String NOTIFY = "NotifyCustomer";
  private static final String SYNC = "SyncCrm";

  @TempDir Path dir;
  private Path db;
  private SqliteStore store;
  private EffectStore effects;

  /** What the terminal is asked, and its answer (null: no terminal). */
  private final List<String> asked = new CopyOnWriteArrayList<>();

  private @Nullable String answer;
  private boolean tty;
  private Runnable onAsk = () -> {};

  @BeforeEach
  void seed() {
    db = dir.resolve("watukuy.db");
    store = SqliteStore.builder(db).build();
    store.migrate();
    effects = store.effects().orElseThrow();
    // NotifyCustomer on orders: position 2; lane customer:7 failed at 3, lanes 8 and 9 went on to
    // 4 and 5 with three journaled calls; 1 ended terminal.
    Lease engine = effects.acquireEffectLease(NOTIFY, "engine-1", Duration.ofSeconds(30), T0).get();
    effects.saveCursor(
        new EffectCursor(NOTIFY, ORDERS, 2, 4L, Map.of("created", "customer"), T0), engine);
    effects.saveInvocation(
        row(NOTIFY, 1, "customer:6", InvocationStatus.TERMINAL, "no customer"), engine);
    effects.saveInvocation(
        new InvocationRow(
            NOTIFY,
            ORDERS,
            3,
            "customer:7",
            "created",
            InvocationStatus.FAILED,
            4,
            "HTTP 503 from crm",
            NOW.plusSeconds(12),
            false,
            "1.0",
            T0,
            T0),
        engine);
    effects.saveInvocation(row(NOTIFY, 4, "customer:8", InvocationStatus.DONE, null), engine);
    effects.saveInvocation(row(NOTIFY, 5, "customer:9", InvocationStatus.DONE, null), engine);
    journal(4, 0);
    journal(4, 1);
    journal(5, 0);
    effects.addCounts(NOTIFY, 1, "no customer", 0, T0);
    // SyncCrm over two partitions, quarantined; its engine's lease expired long ago too.
    Lease sync = effects.acquireEffectLease(SYNC, "engine-1", Duration.ofSeconds(30), T0).get();
    effects.saveCursor(new EffectCursor(SYNC, EU, 5, null, Map.of(), T0), sync);
    effects.saveCursor(new EffectCursor(SYNC, US, 8, null, Map.of(), T0), sync);
    effects.setQuarantine(SYNC, "dead endpoint", T0);
  }

  @AfterEach
  void close() {
    store.close();
  }

  private static InvocationRow row(
      String effect, long position, String lane, InvocationStatus status, @Nullable String error) {
    return new InvocationRow(
        effect, ORDERS, position, lane, "created", status, 1, error, null, false, "1.0", T0, T0);
  }

  private void journal(long position, int ordinal) {
    effects.appendJournalEntry(
        new JournalEntry(
            NOTIFY,
            ORDERS,
            position,
            "%064x".formatted(position * 10 + ordinal),
            ordinal,
            "crm.post",
            "{}",
            null,
            T0));
  }

  private record Result(int code, String out, String err) {}

  private Result cli(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Cli.Terminal terminal =
        tty
            ? question -> {
              asked.add(question);
              onAsk.run();
              return answer;
            }
            : null;
    int code =
        Main.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.<String, String>of()::get,
            Clock.fixed(NOW, ZoneOffset.UTC),
            terminal);
    return new Result(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private String uri() {
    return "sqlite:" + db;
  }

  @Test
  void listShowsEachEffectsPositionsCountersAndQuarantine() throws IOException {
    Path config = dir.resolve("watukuy.yaml");
    Files.writeString(
        config,
        """
        store: sqlite:watukuy.db
        pollers:
          - name: orders
            request:
              url: http://127.0.0.1:9/orders
              query: { updated_since: "{{cursor.value}}" }
            response: { items: /data }
            identity: /id
            version: /updatedAt
            cursor: { strategy: timestamp, field: updatedAt }
        """);

    Result byStore = cli("effects", "list", "--store", uri());
    Result byConfig = cli("effects", "list", config.toString());

    assertThat(byStore.code()).isZero();
    assertThat(byStore.out().lines())
        .containsExactly(
            "NotifyCustomer\torders=2\t1\t0\t-",
            "SyncCrm\taccounts[eu]=5,accounts[us]=8\t0\t0\t2026-01-05T10:00:00Z dead endpoint");
    assertThat(byConfig.err()).isEmpty();
    assertThat(byConfig.code()).isZero();
    assertThat(byConfig.out()).isEqualTo(byStore.out());
  }

  @Test
  void listAsJson() throws IOException {
    Result r = cli("effects", "list", "--store", uri(), "--json");

    List<String> lines = r.out().lines().toList();
    assertThat(lines).hasSize(2);
    JsonNode sync = new ObjectMapper().readTree(lines.get(1));
    assertThat(sync.get("effect").asText()).isEqualTo(SYNC);
    assertThat(sync.get("quarantined").asBoolean()).isTrue();
    assertThat(sync.get("quarantineReason").asText()).isEqualTo("dead endpoint");
    assertThat(sync.get("sources").get(1).get("partition").asText()).isEqualTo("us");
    assertThat(sync.get("sources").get(1).get("position").asLong()).isEqualTo(8);
    JsonNode notify = new ObjectMapper().readTree(lines.get(0));
    assertThat(notify.get("terminalSkips").asLong()).isEqualTo(1);
    assertThat(notify.get("lastTerminalError").asText()).isEqualTo("no customer");
  }

  @Test
  void showAddsTheStuckLanesTheTerminalRowsAndTheLease() throws IOException {
    Result text = cli("effects", "show", "--store", uri(), NOTIFY);
    Result json = cli("effects", "show", "--store", uri(), NOTIFY, "--json");

    assertThat(text.code()).isZero();
    assertThat(text.out().lines())
        .containsExactly(
            "effect NotifyCustomer",
            "  quarantine: none",
            "  terminal skips: 1 (last: no customer)",
            "  latest collapsed: 0",
            "  lease: free (no engine runs it)",
            "  source orders: position 2, live boundary 4, 1 stuck lane(s)",
            "    stuck lane customer:7 at 3: attempt 4, retry in 12000ms: HTTP 503 from crm",
            "    terminal at 1 (lane customer:6, 2026-01-05T10:00:00Z): no customer");
    JsonNode lane = new ObjectMapper().readTree(json.out()).get("sources").get(0);
    assertThat(lane.get("stuckLanes")).hasSize(1);
    assertThat(lane.get("stuckLanes").get(0).get("retryInMs").asLong()).isEqualTo(12_000);
    assertThat(lane.get("stuckLanes").get(0).get("position").asLong()).isEqualTo(3);
    assertThat(lane.get("terminal").get(0).get("position").asLong()).isEqualTo(1);
  }

  @Test
  void anUnknownEffectOrPartitionOrAMissingStoreIsAConfigError() {
    Result unknown = cli("effects", "show", "--store", uri(), "Notify");
    Result noPartition = cli("effects", "skip", "--store", uri(), SYNC, "6");
    Result badPartition = cli("effects", "skip", "--store", uri(), SYNC, "6", "--partition", "ap");
    Result noFile = cli("effects", "list", "--store", "sqlite:" + dir.resolve("nope.db"));
    Result noTarget = cli("effects", "list");
    Result badPosition = cli("effects", "skip", "--store", uri(), NOTIFY, "three");

    assertThat(unknown.code()).isEqualTo(Main.USAGE);
    assertThat(unknown.err())
        .isEqualTo(
            "watukuy: sqlite:" + db + ": no effect Notify (it holds: NotifyCustomer, SyncCrm)\n");
    assertThat(noPartition.code()).isEqualTo(Main.USAGE);
    assertThat(noPartition.err())
        .contains("effect SyncCrm reads 2 keys (accounts[eu], accounts[us])")
        .contains("give --partition P");
    assertThat(badPartition.err()).contains("effect SyncCrm: no partition 'ap' (known: eu, us)");
    assertThat(noFile.code()).isEqualTo(Main.USAGE);
    assertThat(noFile.err()).contains("no such file").contains("nope.db");
    assertThat(Files.exists(dir.resolve("nope.db"))).isFalse();
    assertThat(noTarget.code()).isEqualTo(Main.USAGE);
    assertThat(noTarget.err()).contains("give CONFIG, or --store URI");
    assertThat(badPosition.code()).isEqualTo(Main.USAGE);
    assertThat(badPosition.err()).contains("POSITION 'three' is not a log position");
  }

  @Test
  void skipIsHonouredOnlyForAFailedPosition() {
    Result done = cli("effects", "skip", "--store", uri(), NOTIFY, "4");
    Result never = cli("effects", "skip", "--store", uri(), NOTIFY, "9");
    Result failed = cli("effects", "skip", "--store", uri(), NOTIFY, "3");

    assertThat(done.code()).isEqualTo(Main.FAILED);
    assertThat(done.err())
        .isEqualTo(
            "watukuy: effect NotifyCustomer: position 4 on orders has not failed (it is done);"
                + " nothing skipped\n");
    assertThat(never.code()).isEqualTo(Main.FAILED);
    assertThat(never.err()).contains("(it has no invocation)");
    assertThat(effects.loadInvocation(NOTIFY, ORDERS, 4).get().skipRequested()).isFalse();
    assertThat(failed.code()).isZero();
    assertThat(failed.err()).contains("skip of position 3 on orders requested");
    InvocationRow row = effects.loadInvocation(NOTIFY, ORDERS, 3).get();
    assertThat(row.skipRequested()).isTrue();
    assertThat(row.updatedAt()).isEqualTo(NOW);
  }

  @Test
  void skipOfPositionZeroIsAUsageErrorAsTheAdminApiAnswers400() {
    Result zero = cli("effects", "skip", "--store", uri(), NOTIFY, "0");

    assertThat(zero.code()).isEqualTo(Main.USAGE);
    assertThat(zero.err())
        .isEqualTo(
            "watukuy effects skip: effect NotifyCustomer: POSITION 0 is not a log position"
                + " (positions start at 1); nothing skipped (see watukuy effects skip --help)\n");
    assertThat(effects.loadInvocation(NOTIFY, ORDERS, 0)).isEmpty();
  }

  @Test
  void skipWithAPartition() {
    Lease lease = effects.acquireEffectLease(SYNC, "engine-1", Duration.ofSeconds(30), T0).get();
    effects.saveInvocation(
        new InvocationRow(
            SYNC,
            US,
            9,
            "a:1",
            "created",
            InvocationStatus.FAILED,
            2,
            "boom",
            null,
            false,
            "1",
            T0,
            T0),
        lease);

    Result r = cli("effects", "skip", "--store", uri(), SYNC, "9", "--partition", "us");

    assertThat(r.code()).isZero();
    assertThat(effects.loadInvocation(SYNC, US, 9).get().skipRequested()).isTrue();
  }

  @Test
  void quarantineAndReleaseArePersistedAndSayWhenThereIsNothingToDo() {
    Result q = cli("effects", "quarantine", "--store", uri(), NOTIFY, "--reason", "crm migration");
    Result again = cli("effects", "quarantine", "--store", uri(), NOTIFY);
    assertThat(q.code()).isZero();
    assertThat(effects.loadEffect(NOTIFY).get().quarantineReason()).isEqualTo("crm migration");
    assertThat(effects.loadEffect(NOTIFY).get().quarantinedAt()).isEqualTo(NOW);
    assertThat(again.code()).isZero();
    assertThat(again.err())
        .isEqualTo(
            "watukuy: effect NotifyCustomer: already quarantined since 2026-01-05T11:00:00Z:"
                + " crm migration\n");

    Result released = cli("effects", "release", "--store", uri(), NOTIFY);
    Result twice = cli("effects", "release", "--store", uri(), NOTIFY);
    Result blank = cli("effects", "quarantine", "--store", uri(), NOTIFY, "--reason", " ");

    assertThat(released.code()).isZero();
    assertThat(released.err()).isEqualTo("watukuy: effect NotifyCustomer: released\n");
    assertThat(effects.loadEffect(NOTIFY).get().quarantined()).isFalse();
    assertThat(twice.err()).contains("not quarantined; nothing to release");
    assertThat(blank.code()).isEqualTo(Main.USAGE);
    assertThat(effects.loadEffect(NOTIFY).get().quarantined()).isFalse();
  }

  @Test
  void rewindIsRefusedWhileAnEngineHoldsTheEffect() {
    effects.acquireEffectLease(NOTIFY, "engine-2", Duration.ofSeconds(30), NOW.minusSeconds(5));

    Result r = cli("effects", "rewind", "--store", uri(), NOTIFY, "2", "--yes");

    assertThat(cli("effects", "show", "--store", uri(), NOTIFY).out())
        .contains("  lease: held by engine-2 until 2026-01-05T11:00:25Z\n");
    assertThat(r.code()).isEqualTo(Main.FAILED);
    assertThat(r.err())
        .isEqualTo(
            "watukuy: effect NotifyCustomer is running: engine-2 holds its lease until"
                + " 2026-01-05T11:00:25Z; stop that engine first (nothing rewound)\n");
    // Refused before the summary: nothing is offered that cannot be done.
    assertThat(r.out()).isEmpty();
    assertThat(effects.countInvocations(NOTIFY, ORDERS, 2)).isEqualTo(3);
  }

  @Test
  void withoutATerminalAndWithoutYesRewindPrintsTheSummaryAndRefuses() {
    Result r = cli("effects", "rewind", "--store", uri(), NOTIFY, "2");

    assertThat(r.code()).isEqualTo(Main.USAGE);
    assertThat(r.out().lines())
        .containsExactly(
            "effect NotifyCustomer on orders: position 2 -> 2",
            "discards 3 invocation row(s) above 2 and their 3 journaled call(s): the positions"
                + " above 2 run again and their calls fire again",
            "on live boundary: stays 4");
    assertThat(r.err()).contains("give --yes to rewind (nothing rewound)");
    assertThat(effects.countInvocations(NOTIFY, ORDERS, 2)).isEqualTo(3);
  }

  @Test
  void onATerminalRewindAsksAndOnlyYesRewinds() {
    tty = true;
    answer = "n";
    Result no = cli("effects", "rewind", "--store", uri(), NOTIFY, "2");
    assertThat(no.code()).isEqualTo(Main.FAILED);
    assertThat(no.err()).isEqualTo("watukuy: effect NotifyCustomer: not rewound\n");
    assertThat(effects.countInvocations(NOTIFY, ORDERS, 2)).isEqualTo(3);

    answer = "yes";
    Result yes = cli("effects", "rewind", "--store", uri(), NOTIFY, "2");

    assertThat(asked)
        .containsOnly("Rewind effect NotifyCustomer on orders to 2? [y/N] ")
        .hasSize(2);
    assertThat(yes.code()).isZero();
    assertThat(yes.out()).contains("discards 3 invocation row(s) above 2");
    assertThat(yes.err())
        .isEqualTo(
            "watukuy: effect NotifyCustomer: rewound to 2 on orders, 3 invocation row(s)"
                + " discarded; the next engine start runs the positions above 2 again\n");
    // Rewinding to the current position discards what a changed key scheme left behind.
    assertThat(effects.countInvocations(NOTIFY, ORDERS, 2)).isZero();
    assertThat(effects.listJournal(NOTIFY, ORDERS, 4, 0, 10)).isEmpty();
    assertThat(effects.loadCursors(NOTIFY).get(0).watermark()).isEqualTo(2);
    // The rewind's lease is given back: an engine may start at once.
    assertThat(effects.acquireEffectLease(NOTIFY, "engine-3", Duration.ofSeconds(30), NOW))
        .isPresent();
  }

  @Test
  void aRewindThatNoLongerMatchesItsSummaryIsNotMade() {
    tty = true;
    answer = "y";
    onAsk =
        () -> {
          // An engine runs position 6 while the operator reads the summary, then stops.
          Lease engine =
              effects
                  .acquireEffectLease(
                      NOTIFY, "engine-2", Duration.ofSeconds(1), NOW.minusSeconds(5))
                  .get();
          effects.saveInvocation(row(NOTIFY, 6, "customer:7", InvocationStatus.DONE, null), engine);
        };

    Result r = cli("effects", "rewind", "--store", uri(), NOTIFY, "2");

    assertThat(r.code()).isEqualTo(Main.FAILED);
    assertThat(r.out()).contains("discards 3 invocation row(s) above 2");
    assertThat(r.err())
        .isEqualTo(
            "watukuy: effect NotifyCustomer moved on orders since the summary; nothing rewound"
                + " (run the command again)\n");
    assertThat(effects.countInvocations(NOTIFY, ORDERS, 2)).isEqualTo(4);
    assertThat(effects.acquireEffectLease(NOTIFY, "engine-3", Duration.ofSeconds(30), NOW))
        .isPresent();
  }

  @Test
  void yesKeepsTheSummaryAndLiveLowersTheBoundary() {
    Result r = cli("effects", "rewind", "--store", uri(), NOTIFY, "1", "--live", "--yes");

    assertThat(r.code()).isZero();
    assertThat(r.out().lines())
        .containsExactly(
            "effect NotifyCustomer on orders: position 2 -> 1",
            "discards 3 invocation row(s) above 1 and their 3 journaled call(s): the positions"
                + " above 1 run again and their calls fire again",
            "on live boundary: 4 -> 1 (for good: on live arms treat the events above it as news)");
    EffectCursor cursor = effects.loadCursors(NOTIFY).get(0);
    assertThat(cursor.watermark()).isEqualTo(1);
    assertThat(cursor.liveBoundary()).isEqualTo(1L);
    assertThat(effects.loadInvocation(NOTIFY, ORDERS, 1)).isPresent();
  }

  @Test
  void rewindNeverMovesForward() {
    Result r = cli("effects", "rewind", "--store", uri(), NOTIFY, "3", "--yes");

    assertThat(r.code()).isEqualTo(Main.USAGE);
    assertThat(r.err())
        .contains("POSITION 3 is above the position 2 on orders; rewind moves back only");
    assertThat(effects.loadCursors(NOTIFY).get(0).watermark()).isEqualTo(2);
  }

  @Test
  void theRedisStoreTheCommandLineOpensKeepsItsEffectTables() {
    // The temporary folder's name is unique: no other run shares these keys.
    String prefix = "watukuy-test:cli-effects:" + dir.getFileName() + ":";
    String redis = "redis://127.0.0.1:6379/0";
    StateStore opened =
        Stores.open(
            new CliConfig.StoreSpec(
                redis, CliConfig.StoreSpec.Kind.REDIS, null, redis, null, null, null, prefix));
    try {
      assertThat(opened.effects()).as("effects() of %s", opened).isPresent();
      EffectStore effects = opened.effects().orElseThrow();
      effects.setQuarantine("E", "test", T0);
      assertThat(effects.listEffects()).containsExactly("E");
      assertThat(effects.loadEffect("E").get().quarantined()).isTrue();
    } finally {
      opened.close();
      RedisClient client = RedisClient.create(redis);
      try (StatefulRedisConnection<String, String> c = client.connect()) {
        List<String> keys = c.sync().keys(prefix + "*");
        if (!keys.isEmpty()) c.sync().del(keys.toArray(new String[0]));
      } finally {
        client.shutdown();
      }
    }
  }
}
