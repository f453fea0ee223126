package io.watukuy.cli;

import static io.watukuy.cli.EffectsTestStore.NOW;
import static io.watukuy.cli.EffectsTestStore.ORDERS;
import static io.watukuy.cli.EffectsTestStore.T0;
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
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
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
  private static final PollerKey EU = PollerKey.of("accounts", "eu");
  private static final PollerKey US = PollerKey.of("accounts", "us");
  private static final String NOTIFY = "NotifyCustomer";
  private static final String SYNC = "SyncCrm";

  @TempDir Path dir;
  private EffectsTestStore fx;
  private EffectStore effects;

  /** What the terminal is asked, and its answer (null: no terminal). */
  private final List<String> asked = new CopyOnWriteArrayList<>();

  private @Nullable String answer;
  private boolean tty;
  private Runnable onAsk = () -> {};

  @BeforeEach
  void seed() {
    fx = new EffectsTestStore(dir);
    effects = fx.effects;
    // The log of orders: events 1 to 5, event n committed n seconds after T0.
    fx.logOrders(5);
    // NotifyCustomer on orders: position 2; lane customer:7 failed at 3, lanes 8 and 9 went on to
    // 4 and 5 with three journaled calls; 1 ended terminal.
    Lease engine = fx.engineLease(NOTIFY);
    effects.saveCursor(
        new EffectCursor(NOTIFY, ORDERS, 2, 4L, Map.of("created", "customer"), T0), engine);
    effects.saveInvocation(
        row(NOTIFY, 1, "customer:6", InvocationStatus.TERMINAL, "no customer"), engine);
    effects.saveInvocation(failedAt3("customer:7"), engine);
    effects.saveInvocation(row(NOTIFY, 4, "customer:8", InvocationStatus.DONE, null), engine);
    effects.saveInvocation(row(NOTIFY, 5, "customer:9", InvocationStatus.DONE, null), engine);
    journal(4, 0);
    journal(4, 1);
    journal(5, 0);
    effects.addCounts(NOTIFY, 1, "no customer", 0, T0);
    // SyncCrm over two partitions, quarantined; its engine's lease expired long ago too.
    Lease sync = fx.engineLease(SYNC);
    effects.saveCursor(new EffectCursor(SYNC, EU, 5, null, Map.of(), T0), sync);
    effects.saveCursor(new EffectCursor(SYNC, US, 8, null, Map.of(), T0), sync);
    effects.setQuarantine(SYNC, "dead endpoint", T0);
  }

  @AfterEach
  void close() {
    fx.close();
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

  private CliRun cli(String... args) {
    return cli(Map.of(), args);
  }

  /** The command with {@code env} as its environment, asked at the terminal when {@code tty}. */
  private CliRun cli(Map<String, String> env, String... args) {
    Cli.Terminal terminal =
        tty
            ? question -> {
              asked.add(question);
              onAsk.run();
              return answer;
            }
            : null;
    return EffectsTestStore.cli(env, terminal, args);
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

    CliRun byStore = cli("effects", "list", "--store", fx.uri());
    CliRun byConfig = cli("effects", "list", config.toString());

    assertThat(byStore.exit()).isZero();
    assertThat(byStore.stdout().lines())
        .containsExactly(
            "NotifyCustomer\twedged\torders=2\t1\t0\t-",
            "SyncCrm\tquarantined\taccounts[eu]=5,accounts[us]=8\t0\t0\t2026-01-05T10:00:00Z"
                + " dead endpoint");
    // The config declares no effects: NotifyCustomer's blocked is judged by its own program.
    assertThat(byConfig.stderr()).contains("effect NotifyCustomer: no config at hand declares it");
    assertThat(byConfig.exit()).isZero();
    assertThat(byConfig.stdout()).isEqualTo(byStore.stdout());
  }

  @Test
  void listAsJson() throws IOException {
    CliRun r = cli("effects", "list", "--store", fx.uri(), "--json");

    List<String> lines = r.stdout().lines().toList();
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
    // Not quarantined: JSON null, not the string "null" and not left out.
    assertThat(notify.get("quarantined").asBoolean()).isFalse();
    assertThat(notify.has("quarantineReason")).isTrue();
    assertThat(notify.get("quarantineReason").isNull()).isTrue();
    assertThat(notify.get("quarantinedAt").isNull()).isTrue();
    JsonNode shown =
        new ObjectMapper()
            .readTree(cli("effects", "show", "--store", fx.uri(), NOTIFY, "--json").stdout());
    assertThat(shown.has("quarantineReason")).isTrue();
    assertThat(shown.get("quarantineReason").isNull()).isTrue();
  }

  @Test
  void aQuarantineReasonIsStoredWithTheConfigsSecretsRedacted() throws IOException {
    String token = "crm-T0ken-5f1c9a";
    byte[] raw = new byte[32];
    Arrays.fill(raw, (byte) 0x5a);
    String key = Base64.getEncoder().encodeToString(raw);
    Path config = dir.resolve("watukuy.yaml");
    Files.writeString(
        config,
        """
        store: sqlite:watukuy.db
        secretKey: ${WATUKUY_SECRET_KEY}
        pollers:
          - name: orders
            request:
              url: http://127.0.0.1:9/orders
              headers: { Authorization: "Bearer ${CRM_TOKEN}" }
            response: { items: /data }
            identity: /id
            cursor: { strategy: snapshotDiff }
        """);
    Map<String, String> env = Map.of("CRM_TOKEN", token, "WATUKUY_SECRET_KEY", key);

    CliRun q =
        cli(
            env,
            "effects",
            "quarantine",
            config.toString(),
            NOTIFY,
            "--reason",
            "curl -H 'Authorization: Bearer " + token + "' answered 401; key " + key);

    assertThat(q.stderr())
        .isEqualTo("watukuy: effect NotifyCustomer: quarantined; release to resume it\n");
    assertThat(q.exit()).isZero();
    assertThat(effects.loadEffect(NOTIFY).get().quarantineReason())
        .isEqualTo("curl -H 'Authorization: Bearer [redacted]' answered 401; key [redacted]");
  }

  @Test
  void showAddsTheStuckLanesTheTerminalRowsAndTheLease() throws IOException {
    CliRun text = cli("effects", "show", "--store", fx.uri(), NOTIFY);
    CliRun json = cli("effects", "show", "--store", fx.uri(), NOTIFY, "--json");

    assertThat(text.exit()).isZero();
    assertThat(text.stdout().lines())
        .containsExactly(
            "effect NotifyCustomer",
            "  state: wedged (blocked is judged against the declaring program: Effects.plan() or"
                + " GET /admin/effects/NotifyCustomer)",
            "  quarantine: none",
            "  terminal skips: 1 (last: no customer)",
            "  latest collapsed: 0",
            "  lease: free (no engine runs it)",
            "  source orders: position 2, lag 3 (head 5), live boundary 4, 1 stuck lane(s)",
            "    stuck lane customer:7 at 3: attempt 4, retry in 12000ms: HTTP 503 from crm",
            "    terminal at 1 (lane customer:6, 2026-01-05T10:00:00Z): no customer");
    JsonNode lane = new ObjectMapper().readTree(json.stdout()).get("sources").get(0);
    assertThat(lane.get("stuckLanes")).hasSize(1);
    assertThat(lane.get("stuckLanes").get(0).get("retryInMs").asLong()).isEqualTo(12_000);
    assertThat(lane.get("stuckLanes").get(0).get("position").asLong()).isEqualTo(3);
    assertThat(lane.get("terminal").get(0).get("position").asLong()).isEqualTo(1);
  }

  @Test
  void showListsTheSkippedRowsBesideTheTerminalOnes() throws IOException {
    Lease engine = fx.engineLease(NOTIFY);
    // Position 2 failed and an operator skipped it; the engine completed it at T0 + 90 s.
    effects.saveInvocation(
        new InvocationRow(
            NOTIFY,
            ORDERS,
            2,
            "customer:5",
            "created",
            InvocationStatus.SKIPPED,
            3,
            "HTTP 400 from crm",
            null,
            true,
            "1.0",
            T0,
            T0.plusSeconds(90)),
        engine);

    CliRun text = cli("effects", "show", "--store", fx.uri(), NOTIFY);
    CliRun json = cli("effects", "show", "--store", fx.uri(), NOTIFY, "--json");

    assertThat(text.exit()).isZero();
    assertThat(text.stdout().lines())
        .endsWith(
            "    terminal at 1 (lane customer:6, 2026-01-05T10:00:00Z): no customer",
            "    skipped at 2 (lane customer:5, at 2026-01-05T10:01:30Z)");
    JsonNode source = new ObjectMapper().readTree(json.stdout()).get("sources").get(0);
    assertThat(source.get("skipped")).hasSize(1);
    JsonNode skipped = source.get("skipped").get(0);
    assertThat(skipped.get("position").asLong()).isEqualTo(2);
    assertThat(skipped.get("lane").asText()).isEqualTo("customer:5");
    assertThat(skipped.get("at").asText()).isEqualTo("2026-01-05T10:01:30Z");
    assertThat(skipped.get("error").asText()).isEqualTo("HTTP 400 from crm");
    assertThat(source.get("terminal")).hasSize(1); // the terminal row is not listed as skipped
  }

  @Test
  void anInvocationOfNoKeyIsShownAsNoKeyAndItsJsonLaneIsNull() throws IOException {
    Lease engine = fx.engineLease(NOTIFY);
    // Position 3 again, now of an event whose key gave no value: the store keeps an empty lane.
    effects.saveInvocation(failedAt3(""), engine);
    effects.saveInvocation(row(NOTIFY, 1, "", InvocationStatus.TERMINAL, "no customer"), engine);

    CliRun text = cli("effects", "show", "--store", fx.uri(), NOTIFY);
    CliRun json = cli("effects", "show", "--store", fx.uri(), NOTIFY, "--json");

    assertThat(text.stdout().lines())
        .contains(
            "    stuck lane (no key) at 3: attempt 4, retry in 12000ms: HTTP 503 from crm",
            "    terminal at 1 (lane (no key), 2026-01-05T10:00:00Z): no customer");
    JsonNode source = new ObjectMapper().readTree(json.stdout()).get("sources").get(0);
    assertThat(source.get("stuckLanes").get(0).get("lane").isNull()).isTrue();
    assertThat(source.get("terminal").get(0).get("lane").isNull()).isTrue();
  }

  @Test
  void anUnknownEffectOrPartitionOrAMissingStoreIsAConfigError() {
    CliRun unknown = cli("effects", "show", "--store", fx.uri(), "Notify");
    CliRun noPartition = cli("effects", "skip", "--store", fx.uri(), SYNC, "6");
    CliRun badPartition =
        cli("effects", "skip", "--store", fx.uri(), SYNC, "6", "--partition", "ap");
    CliRun noFile = cli("effects", "list", "--store", "sqlite:" + dir.resolve("nope.db"));
    CliRun noTarget = cli("effects", "list");
    CliRun badPosition = cli("effects", "skip", "--store", fx.uri(), NOTIFY, "three");

    assertThat(unknown.exit()).isEqualTo(Main.USAGE);
    assertThat(unknown.stderr())
        .isEqualTo(
            "watukuy: " + fx.uri() + ": no effect Notify (it holds: NotifyCustomer, SyncCrm)\n");
    assertThat(noPartition.exit()).isEqualTo(Main.USAGE);
    assertThat(noPartition.stderr())
        .contains("effect SyncCrm reads 2 keys (accounts[eu], accounts[us])")
        .contains("give --partition P");
    assertThat(badPartition.stderr()).contains("effect SyncCrm: no partition 'ap' (known: eu, us)");
    assertThat(noFile.exit()).isEqualTo(Main.USAGE);
    assertThat(noFile.stderr()).contains("no such file").contains("nope.db");
    assertThat(Files.exists(dir.resolve("nope.db"))).isFalse();
    assertThat(noTarget.exit()).isEqualTo(Main.USAGE);
    assertThat(noTarget.stderr()).contains("give CONFIG, or --store URI");
    assertThat(badPosition.exit()).isEqualTo(Main.USAGE);
    assertThat(badPosition.stderr()).contains("POSITION 'three' is not a log position");
  }

  @Test
  void skipIsHonouredOnlyForAFailedPosition() {
    CliRun done = cli("effects", "skip", "--store", fx.uri(), NOTIFY, "4");
    CliRun never = cli("effects", "skip", "--store", fx.uri(), NOTIFY, "9");
    CliRun failed = cli("effects", "skip", "--store", fx.uri(), NOTIFY, "3");

    assertThat(done.exit()).isEqualTo(Main.FAILED);
    assertThat(done.stderr())
        .isEqualTo(
            "watukuy: effect NotifyCustomer: position 4 on orders has not failed (it is done);"
                + " nothing skipped\n");
    assertThat(never.exit()).isEqualTo(Main.FAILED);
    assertThat(never.stderr()).contains("(it has no invocation)");
    assertThat(effects.loadInvocation(NOTIFY, ORDERS, 4).get().skipRequested()).isFalse();
    assertThat(failed.exit()).isZero();
    assertThat(failed.stderr()).contains("skip of position 3 on orders requested");
    InvocationRow row = effects.loadInvocation(NOTIFY, ORDERS, 3).get();
    assertThat(row.skipRequested()).isTrue();
    assertThat(row.updatedAt()).isEqualTo(NOW);
  }

  @Test
  void skipOfPositionZeroIsAUsageErrorAsTheAdminApiAnswers400() {
    CliRun zero = cli("effects", "skip", "--store", fx.uri(), NOTIFY, "0");

    assertThat(zero.exit()).isEqualTo(Main.USAGE);
    assertThat(zero.stderr())
        .isEqualTo(
            "watukuy effects skip: effect NotifyCustomer: POSITION 0 is not a log position"
                + " (positions start at 1); nothing skipped (see watukuy effects skip --help)\n");
    assertThat(effects.loadInvocation(NOTIFY, ORDERS, 0)).isEmpty();
  }

  @Test
  void skipWithAPartition() {
    Lease lease = fx.engineLease(SYNC);
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

    CliRun r = cli("effects", "skip", "--store", fx.uri(), SYNC, "9", "--partition", "us");

    assertThat(r.exit()).isZero();
    assertThat(effects.loadInvocation(SYNC, US, 9).get().skipRequested()).isTrue();
  }

  @Test
  void quarantineAndReleaseArePersistedAndSayWhenThereIsNothingToDo() {
    CliRun q =
        cli("effects", "quarantine", "--store", fx.uri(), NOTIFY, "--reason", "crm migration");
    CliRun again = cli("effects", "quarantine", "--store", fx.uri(), NOTIFY);
    assertThat(q.exit()).isZero();
    assertThat(effects.loadEffect(NOTIFY).get().quarantineReason()).isEqualTo("crm migration");
    assertThat(effects.loadEffect(NOTIFY).get().quarantinedAt()).isEqualTo(NOW);
    assertThat(again.exit()).isZero();
    assertThat(again.stderr())
        .isEqualTo(
            "watukuy: effect NotifyCustomer: already quarantined since 2026-01-05T11:00:00Z:"
                + " crm migration\n");

    CliRun released = cli("effects", "release", "--store", fx.uri(), NOTIFY);
    CliRun twice = cli("effects", "release", "--store", fx.uri(), NOTIFY);
    CliRun blank = cli("effects", "quarantine", "--store", fx.uri(), NOTIFY, "--reason", " ");

    assertThat(released.exit()).isZero();
    assertThat(released.stderr()).isEqualTo("watukuy: effect NotifyCustomer: released\n");
    assertThat(effects.loadEffect(NOTIFY).get().quarantined()).isFalse();
    assertThat(twice.stderr()).contains("not quarantined; nothing to release");
    assertThat(blank.exit()).isEqualTo(Main.USAGE);
    assertThat(effects.loadEffect(NOTIFY).get().quarantined()).isFalse();
  }

  @Test
  void rewindIsRefusedWhileAnEngineHoldsTheEffect() {
    effects.acquireEffectLease(NOTIFY, "engine-2", Duration.ofSeconds(30), NOW.minusSeconds(5));

    CliRun r = cli("effects", "rewind", "--store", fx.uri(), NOTIFY, "2", "--yes");

    assertThat(cli("effects", "show", "--store", fx.uri(), NOTIFY).stdout())
        .contains("  lease: held by engine-2 until 2026-01-05T11:00:25Z\n");
    assertThat(r.exit()).isEqualTo(Main.FAILED);
    assertThat(r.stderr())
        .isEqualTo(
            "watukuy: effect NotifyCustomer is running: engine-2 holds its lease until"
                + " 2026-01-05T11:00:25Z; stop that engine first (nothing rewound)\n");
    // Refused before the summary: nothing is offered that cannot be done.
    assertThat(r.stdout()).isEmpty();
    assertThat(effects.countInvocations(NOTIFY, ORDERS, 2)).isEqualTo(3);
  }

  @Test
  void withoutATerminalAndWithoutYesRewindPrintsTheSummaryAndRefuses() {
    CliRun r = cli("effects", "rewind", "--store", fx.uri(), NOTIFY, "2");

    assertThat(r.exit()).isEqualTo(Main.USAGE);
    assertThat(r.stdout().lines())
        .containsExactly(
            "effect NotifyCustomer on orders: position 2 -> 2",
            "discards 3 invocation row(s) above 2 and their 3 journaled call(s): the positions"
                + " above 2 run again and their calls fire again",
            "on live boundary: stays 4");
    assertThat(r.stderr()).contains("give --yes to rewind (nothing rewound)");
    assertThat(effects.countInvocations(NOTIFY, ORDERS, 2)).isEqualTo(3);
  }

  @Test
  void onATerminalRewindAsksAndOnlyYesRewinds() {
    tty = true;
    answer = "n";
    CliRun no = cli("effects", "rewind", "--store", fx.uri(), NOTIFY, "2");
    assertThat(no.exit()).isEqualTo(Main.FAILED);
    assertThat(no.stderr()).isEqualTo("watukuy: effect NotifyCustomer: not rewound\n");
    assertThat(effects.countInvocations(NOTIFY, ORDERS, 2)).isEqualTo(3);

    answer = "yes";
    CliRun yes = cli("effects", "rewind", "--store", fx.uri(), NOTIFY, "2");

    assertThat(asked)
        .containsOnly("Rewind effect NotifyCustomer on orders to 2? [y/N] ")
        .hasSize(2);
    assertThat(yes.exit()).isZero();
    assertThat(yes.stdout()).contains("discards 3 invocation row(s) above 2");
    assertThat(yes.stderr())
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
    answerYesAfterAnEngineRunsPosition6();

    CliRun r = cli("effects", "rewind", "--store", fx.uri(), NOTIFY, "2");

    assertThat(r.exit()).isEqualTo(Main.FAILED);
    assertThat(r.stdout()).contains("discards 3 invocation row(s) above 2");
    assertThat(r.stderr())
        .isEqualTo(
            "watukuy: effect NotifyCustomer moved on orders since the summary; nothing rewound"
                + " (run the command again)\n");
    assertThat(effects.countInvocations(NOTIFY, ORDERS, 2)).isEqualTo(4);
    assertThat(effects.acquireEffectLease(NOTIFY, "engine-3", Duration.ofSeconds(30), NOW))
        .isPresent();
  }

  @Test
  void yesKeepsTheSummaryAndLiveLowersTheBoundary() {
    CliRun r = cli("effects", "rewind", "--store", fx.uri(), NOTIFY, "1", "--live", "--yes");

    assertThat(r.exit()).isZero();
    assertThat(r.stdout().lines())
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
    CliRun r = cli("effects", "rewind", "--store", fx.uri(), NOTIFY, "3", "--yes");

    assertThat(r.exit()).isEqualTo(Main.USAGE);
    assertThat(r.stderr())
        .contains("POSITION 3 is above the position 2 on orders; rewind moves back only");
    assertThat(effects.loadCursors(NOTIFY).get(0).watermark()).isEqualTo(2);
  }

  @Test
  void rewindNeverGoesBelowTheOldestEventTheLogKeeps() {
    // Events 1 and 2 are pruned (at or below NotifyCustomer's position 2, so the log lets them go).
    assertThat(fx.store.pruneLog(ORDERS, T0.plusSeconds(3))).isEqualTo(2);

    CliRun below = cli("effects", "rewind", "--store", fx.uri(), NOTIFY, "1", "--yes");
    CliRun atCurrent = cli("effects", "rewind", "--store", fx.uri(), NOTIFY, "2", "--yes");

    assertThat(below.exit()).isEqualTo(Main.USAGE);
    assertThat(below.stderr())
        .isEqualTo(
            "watukuy: effect NotifyCustomer: POSITION 1 is below the oldest event the log of"
                + " orders still keeps (position 3); the events between were pruned and a rewind"
                + " there would skip them without running them: give 2 or more\n");
    assertThat(below.stdout()).isEmpty();
    // Rewinding to 2 reads 3 next: nothing pruned is passed over.
    assertThat(atCurrent.exit()).isZero();
    assertThat(effects.loadCursors(NOTIFY).get(0).watermark()).isEqualTo(2);
  }

  @Test
  void aLogPrunedWholeOnlyLetsRewindStayWhereItIs() {
    // accounts[us] has no logged event at all: everything up to SyncCrm's 8 is gone.
    CliRun r =
        cli("effects", "rewind", "--store", fx.uri(), SYNC, "7", "--partition", "us", "--yes");

    assertThat(r.exit()).isEqualTo(Main.USAGE);
    assertThat(r.stderr())
        .contains(
            "effect SyncCrm: POSITION 7 is below the oldest event the log of accounts[us] still"
                + " keeps (none: every event up to 8 is pruned)")
        .contains("give 8 or more");
    assertThat(effects.loadCursors(SYNC).get(1).watermark()).isEqualTo(8);
  }

  /** A config over the seeded store: orders with its log, and {@code effects}. */
  private Path config(String effects) throws IOException {
    return fx.config("plan.yaml", effects);
  }

  private static String effect(String name, String scheme) {
    return """
          - name: %s
            source: orders
            on: [created]
            key: { scheme: %s, value: /item/customer }
            request: { url: "http://127.0.0.1:9/hook" }
        """
        .formatted(name, scheme);
  }

  @Test
  void planOfAKeySchemeChangeWithOutstandingRowsWouldBlockAndExits3() throws IOException {
    Path config = config(effect(NOTIFY, "account") + effect("Welcome", "customer"));

    CliRun r = cli("effects", "plan", config.toString());
    CliRun json = cli("effects", "plan", config.toString(), "--json");

    assertThat(r.exit()).isEqualTo(EffectPlanCommand.BLOCKED).isEqualTo(3);
    assertThat(r.stdout().lines())
        .containsExactly(
            "effect NotifyCustomer: blocked",
            "  orders: blocked: the key scheme of created (customer → account) moved while 3"
                + " lane(s) have 3 invocation row(s) above position 2; drain them under the"
                + " previous key first, or rewind to 2",
            "effect Welcome: new (nothing stored for it yet)",
            "effect SyncCrm: retired (in the store, not in "
                + config
                + "); its positions (accounts[eu]=5, accounts[us]=8) hold the log's retention"
                + " until: watukuy effects forget "
                + config
                + " SyncCrm");
    assertThat(r.stderr())
        .isEqualTo(
            "watukuy: a deploy of " + config + " would start NotifyCustomer blocked (exit 3)\n");
    JsonNode plan = new ObjectMapper().readTree(json.stdout());
    assertThat(json.exit()).isEqualTo(3);
    assertThat(plan.get("blocked").asBoolean()).isTrue();
    JsonNode orders = plan.get("effects").get(0).get("sources").get(0);
    assertThat(orders.get("movedSchemes").get(0).asText())
        .isEqualTo("created (customer → account)");
    assertThat(orders.get("outstandingLanes").asInt()).isEqualTo(3);
    assertThat(orders.get("outstandingRows").asLong()).isEqualTo(3);
    assertThat(plan.get("effects").get(2).get("state").asText()).isEqualTo("retired");
    // A plan reads only: no lease taken, nothing rewound.
    assertThat(effects.effectLease("Welcome")).isEmpty();
    assertThat(effects.countInvocations(NOTIFY, ORDERS, 2)).isEqualTo(3);
  }

  @Test
  void aCleanPlanExitsZero() throws IOException {
    Path config = config(effect(NOTIFY, "customer"));

    CliRun r = cli("effects", "plan", config.toString());

    assertThat(r.exit()).isZero();
    assertThat(r.stdout().lines())
        .startsWith("effect NotifyCustomer: unchanged", "  orders: unchanged at position 2");
    assertThat(r.stderr()).isEmpty();
  }

  @Test
  void aSchemeChangeWithNothingOutstandingDoesNotBlock() throws IOException {
    Lease lease = effects.acquireEffectLease(NOTIFY, "engine-1", Duration.ofSeconds(30), NOW).get();
    effects.rewind(NOTIFY, ORDERS, 5, false, lease, NOW);
    effects.saveCursor(
        new EffectCursor(NOTIFY, ORDERS, 5, 4L, Map.of("created", "customer"), NOW), lease);
    effects.releaseEffectLease(NOTIFY, lease);

    CliRun r = cli("effects", "plan", config(effect(NOTIFY, "account")).toString());

    assertThat(r.exit()).isZero();
    assertThat(r.stdout().lines())
        .startsWith(
            "effect NotifyCustomer: changed",
            "  orders: key scheme moves: created (customer → account); no rows above position 5");
  }

  @Test
  void forgetIsRefusedWhileAnEngineHoldsTheEffect() {
    effects.acquireEffectLease(SYNC, "engine-2", Duration.ofSeconds(30), NOW.minusSeconds(5));

    CliRun r = cli("effects", "forget", "--store", fx.uri(), SYNC, "--yes");

    assertThat(r.exit()).isEqualTo(Main.FAILED);
    assertThat(r.stderr())
        .isEqualTo(
            "watukuy: effect SyncCrm is running: engine-2 holds its lease until"
                + " 2026-01-05T11:00:25Z; stop that engine first (nothing forgotten)\n");
    assertThat(r.stdout()).isEmpty();
    assertThat(effects.loadCursors(SYNC)).hasSize(2);
  }

  @Test
  void withoutATerminalAndWithoutYesForgetPrintsWhatItDeletesAndRefuses() {
    CliRun r = cli("effects", "forget", "--store", fx.uri(), NOTIFY);

    assertThat(r.exit()).isEqualTo(Main.USAGE);
    assertThat(r.stdout().lines())
        .containsExactly(
            "effect NotifyCustomer: forget deletes",
            "  cursors: orders at position 2",
            "  invocations: 4 row(s), 1 of them pending (running or failed): they never run",
            "  journal: 3 journaled call(s)",
            "  quarantine: none");
    assertThat(r.stderr()).contains("give --yes to forget (nothing forgotten)");
    assertThat(effects.listEffects()).containsExactly(NOTIFY, SYNC);
  }

  @Test
  void forgetDeletesEverythingOfTheEffectAndTheLogIsPrunedAgain() {
    // Held by NotifyCustomer at 2, the log of orders keeps its events 3 to 5 however old.
    assertThat(fx.store.pruneLog(ORDERS, NOW)).isEqualTo(2);

    CliRun r = cli("effects", "forget", "--store", fx.uri(), NOTIFY, "--yes");

    assertThat(r.exit()).isZero();
    assertThat(r.stdout()).contains("  invocations: 4 row(s), 1 of them pending");
    assertThat(r.stderr())
        .isEqualTo(
            "watukuy: effect NotifyCustomer forgotten: 1 cursor(s), 4 invocation row(s) and 3"
                + " journaled call(s) deleted; the logs it read are pruned by their retention"
                + " again\n");
    assertThat(effects.listEffects()).containsExactly(SYNC);
    assertThat(effects.loadCursors(NOTIFY)).isEmpty();
    assertThat(effects.loadInvocation(NOTIFY, ORDERS, 3)).isEmpty();
    assertThat(effects.listJournal(NOTIFY, ORDERS, 4, 0, 10)).isEmpty();
    assertThat(effects.effectLease(NOTIFY)).isEmpty();
    assertThat(fx.store.pruneLog(ORDERS, NOW)).isEqualTo(3);
    // The other effect keeps its positions and quarantine.
    assertThat(effects.loadCursors(SYNC)).hasSize(2);
    assertThat(effects.loadEffect(SYNC).get().quarantined()).isTrue();
  }

  @Test
  void onATerminalForgetAsksAndOnlyYesForgets() throws IOException {
    Path config = config(effect(NOTIFY, "customer"));
    tty = true;
    answer = "no";
    CliRun no = cli("effects", "forget", config.toString(), SYNC);
    assertThat(no.exit()).isEqualTo(Main.FAILED);
    assertThat(no.stderr()).isEqualTo("watukuy: effect SyncCrm: not forgotten\n");
    assertThat(no.stdout().lines())
        .contains(
            "  cursors: accounts[eu] at position 5, accounts[us] at position 8",
            "  quarantine: since 2026-01-05T10:00:00Z: dead endpoint");
    assertThat(effects.listEffects()).containsExactly(NOTIFY, SYNC);

    answer = "y";
    CliRun yes = cli("effects", "forget", config.toString(), SYNC);

    assertThat(asked).containsOnly("Forget effect SyncCrm? [y/N] ").hasSize(2);
    assertThat(yes.exit()).isZero();
    assertThat(effects.listEffects()).containsExactly(NOTIFY);
    assertThat(effects.lowestWatermark(EU)).isEmpty();
  }

  @Test
  void aForgetThatNoLongerMatchesItsSummaryIsNotMade() {
    answerYesAfterAnEngineRunsPosition6();

    CliRun r = cli("effects", "forget", "--store", fx.uri(), NOTIFY);

    assertThat(r.exit()).isEqualTo(Main.FAILED);
    assertThat(r.stderr())
        .isEqualTo(
            "watukuy: effect NotifyCustomer moved since the summary; nothing forgotten (run the"
                + " command again)\n");
    assertThat(effects.countInvocations(NOTIFY, ORDERS, 0)).isEqualTo(5);
    assertThat(effects.acquireEffectLease(NOTIFY, "engine-3", Duration.ofSeconds(30), NOW))
        .isPresent();
  }

  @Test
  void forgetRefusesAnEffectTheConfigStillDeclares() throws IOException {
    Path config = config(effect(NOTIFY, "customer"));

    CliRun r = cli("effects", "forget", config.toString(), NOTIFY, "--yes");

    assertThat(r.exit()).isEqualTo(Main.USAGE);
    assertThat(r.stderr())
        .isEqualTo(
            "watukuy: effect NotifyCustomer is declared in "
                + config
                + ": forgetting it would make the next run start it afresh, from the oldest event"
                + " the log keeps; remove it from effects: first (nothing forgotten)\n");
    assertThat(effects.loadCursors(NOTIFY)).hasSize(1);
  }

  @Test
  void inspectNamesTheEffectsTheConfigNoLongerDeclaresAndHowToForgetThem() throws IOException {
    Path config = config(effect(NOTIFY, "customer"));

    CliRun r = cli("inspect", config.toString());

    assertThat(r.exit()).isZero();
    assertThat(r.stdout().lines())
        .contains(
            "  effect SyncCrm is not in "
                + config
                + " but holds the log of accounts[eu] above 5, accounts[us] above 8; watukuy"
                + " effects forget "
                + config
                + " SyncCrm lets retention prune it")
        .noneMatch(line -> line.contains("effect NotifyCustomer"));
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

  /**
   * The operator answers {@code y}, but while they read the summary an engine takes the lease
   * (already expired by {@link #NOW}), runs position 6 and stops.
   */
  private void answerYesAfterAnEngineRunsPosition6() {
    tty = true;
    answer = "y";
    onAsk =
        () -> {
          Lease engine =
              effects
                  .acquireEffectLease(
                      NOTIFY, "engine-2", Duration.ofSeconds(1), NOW.minusSeconds(5))
                  .get();
          effects.saveInvocation(row(NOTIFY, 6, "customer:7", InvocationStatus.DONE, null), engine);
        };
  }

  /**
   * Position 3 of lane {@code lane}, failed 4 times by the CRM, retried 12 s after {@link #NOW}.
   */
  private static InvocationRow failedAt3(String lane) {
    return new InvocationRow(
        NOTIFY,
        ORDERS,
        3,
        lane,
        "created",
        InvocationStatus.FAILED,
        4,
        "HTTP 503 from crm",
        NOW.plusSeconds(12),
        false,
        "1.0",
        T0,
        T0);
  }
}
