package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.watukuy.PollerKey;
import io.watukuy.spi.Lease;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import io.watukuy.spi.StateStore;
import io.watukuy.store.sqlite.SqliteStore;
import io.watukuy.testing.ReadsWallClock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The operations on stored state, driven through {@code Main.run} against a local listing. */
class OperationsCommandsTest {
  private static final Pattern EVENT_ID = Pattern.compile("^\\{\"id\":\"([0-9a-f]+)\"");
  private static final List<String> COMMANDS =
      List.of(
          "run",
          "validate",
          "migrate",
          "inspect",
          "pause",
          "resume",
          "trigger",
          "reset-cursor",
          "backfill",
          "replay",
          "parked",
          "parked list",
          "parked retry",
          "parked discard");

  @TempDir Path dir;

  private final List<String> orders = new CopyOnWriteArrayList<>();
  private HttpServer server;
  private Path config;
  private Path db;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    // The whole listing every time: the engine's known versions keep repeats out of the output.
    server.createContext("/orders", this::list);
    server.start();
    orders.add("{\"id\":1,\"updatedAt\":\"2024-01-01T00:00:00Z\"}");
    orders.add("{\"id\":2,\"updatedAt\":\"2024-01-02T00:00:00Z\"}");
    config = dir.resolve("watukuy.yaml");
    db = dir.resolve("watukuy.db");
    writeConfig("");
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private void writeConfig(String extra) throws IOException {
    Files.writeString(
        config,
        """
        store: sqlite:watukuy.db
        pollers:
          - name: orders
            request:
              url: http://127.0.0.1:%d/orders
              query: { updated_since: "{{cursor.value}}" }
            response: { items: /data }
            identity: /id
            version: /updatedAt
            cursor: { strategy: timestamp, field: updatedAt }
        %s"""
            .formatted(server.getAddress().getPort(), extra));
  }

  private void list(HttpExchange ex) throws IOException {
    byte[] body =
        ("{\"data\":[" + String.join(",", orders) + "]}").getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(200, body.length);
    ex.getResponseBody().write(body);
    ex.close();
  }

  private record Result(int code, String out, String err) {
    List<String> ids() {
      return out.lines()
          .map(
              l -> {
                Matcher m = EVENT_ID.matcher(l);
                assertThat(m.find()).as("an event line: %s", l).isTrue();
                return m.group(1);
              })
          .toList();
    }
  }

  private Result cli(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.<String, String>of()::get);
    return new Result(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private Result once() {
    Result r = cli("run", config.toString(), "--once");
    assertThat(r.code()).as(r.err()).isZero();
    return r;
  }

  @Test
  void resetToInitialWithClearedSnapshotReEmitsTheSameIds() {
    List<String> first = once().ids();
    assertThat(first).hasSize(2);
    assertThat(once().ids()).isEmpty();

    Result reset =
        cli("reset-cursor", config.toString(), "orders", "--initial", "--clear-snapshot");

    assertThat(reset.code()).as(reset.err()).isZero();
    assertThat(reset.err())
        .contains("poller orders: live cursor reset to its initial value, snapshot cleared");
    assertThat(once().ids()).containsExactlyElementsOf(first);
  }

  @Test
  void resetWithoutClearingTheSnapshotEmitsNothingKnown() {
    once();

    assertThat(
            cli("reset-cursor", config.toString(), "orders", "--to", "2023-12-31T00:00:00Z").code())
        .isZero();

    assertThat(once().ids()).isEmpty();
  }

  @Test
  void resetCursorNeedsExactlyOneOfToAndInitial() {
    Result neither = cli("reset-cursor", config.toString(), "orders");
    Result both =
        cli(
            "reset-cursor",
            config.toString(),
            "orders",
            "--initial",
            "--to",
            "2024-01-01T00:00:00Z");

    assertThat(neither.code()).isEqualTo(Main.USAGE);
    assertThat(neither.err().lines().toList())
        .singleElement()
        .asString()
        .contains("give exactly one of --to VALUE and --initial");
    assertThat(both.code()).isEqualTo(Main.USAGE);
  }

  @Test
  void aToValueThatIsNotATimestampExitsTwoNamingTheValue() {
    once();

    Result reset = cli("reset-cursor", config.toString(), "orders", "--to", "last-tuesday");
    Result backfill =
        cli(
            "backfill",
            config.toString(),
            "orders",
            "--from",
            "2024-01-01T00:00:00Z",
            "--to",
            "soon");

    // What a YAML user can do about it: write the value in a shape the poller reads.
    String shapes =
        ": use ISO 8601 (2024-05-01T00:00:00Z, 2024-05-01T02:00:00+02:00, 2024-05-01)"
            + " or epoch seconds (10 digits) or milliseconds (13 digits)\n";
    assertThat(reset.code()).isEqualTo(Main.USAGE);
    assertThat(reset.err())
        .isEqualTo(
            "watukuy: poller orders: cursor.field updatedAt: 'last-tuesday' is not a timestamp"
                + shapes);
    assertThat(backfill.code()).isEqualTo(Main.USAGE);
    assertThat(backfill.err())
        .isEqualTo(
            "watukuy: poller orders: cursor.field updatedAt: 'soon' is not a timestamp" + shapes);
  }

  @Test
  void operationsThatCheckCursorsRefuseStoreWithoutConfig() {
    once();
    for (String[] args :
        List.of(
            new String[] {"reset-cursor", "--store", "sqlite:" + db, "orders", "--initial"},
            new String[] {
              "backfill", "--store", "sqlite:" + db, "orders", "--from", "2024-01-01T00:00:00Z"
            },
            new String[] {
              "replay", "--store", "sqlite:" + db, "orders", "--from", "2024-01-01T00:00:00Z"
            })) {
      Result r = cli(args);

      assertThat(r.code()).as(String.join(" ", args)).isEqualTo(Main.USAGE);
      assertThat(r.err().lines().toList())
          .singleElement()
          .asString()
          .contains("needs CONFIG, not --store");
    }
  }

  @Test
  void backfillIsRecordedAndRunsOnTheNextCycle() {
    once();

    Result r =
        cli("backfill", config.toString(), "orders", "--from", "2023-01-01T00:00:00Z", "--force");

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err())
        .contains("poller orders: backfill from '2023-01-01T00:00:00Z' to the live cursor (force)");
  }

  @Test
  void replayWithoutTheEventLogExitsTwoNamingThePoller() {
    once();

    Result r = cli("replay", config.toString(), "orders", "--from", "2024-01-01T00:00:00Z");

    assertThat(r.code()).isEqualTo(Main.USAGE);
    assertThat(r.out()).isEmpty();
    assertThat(r.err().lines().toList())
        .singleElement()
        .asString()
        .contains("poller orders: replay needs the event log");
  }

  @Test
  void replayCopiesLoggedEventsBackAndTheNextRunDeliversThemWithTheirIds() throws IOException {
    writeConfig("    log: { enabled: true, retention: 1d }\n");
    List<String> first = once().ids();

    Result r = cli("replay", config.toString(), "orders", "--from", "2000-01-01T00:00:00Z");

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).isEqualTo("2" + System.lineSeparator());
    Result again = once();
    assertThat(again.ids()).containsExactlyElementsOf(first);
    assertThat(again.out()).contains("\"lane\":\"replay\"");
  }

  @Test
  void replayRejectsAnInstantThatIsNotIso8601() {
    Result r = cli("replay", config.toString(), "orders", "--from", "yesterday");

    assertThat(r.code()).isEqualTo(Main.USAGE);
    assertThat(r.err()).contains("--from 'yesterday' is not an ISO-8601 instant");
  }

  @Test
  void parkedListOfAStoreWithoutParkedRowsPrintsNothing() {
    once();

    Result byConfig = cli("parked", "list", config.toString(), "orders");
    Result byStore = cli("parked", "list", "--store", "sqlite:" + db, "orders", "--json");

    assertThat(byConfig.code()).as(byConfig.err()).isZero();
    assertThat(byConfig.out()).isEmpty();
    assertThat(byStore.code()).as(byStore.err()).isZero();
    assertThat(byStore.out()).isEmpty();
  }

  @Test
  void retryAndDiscardOfAnUnknownIdRemoveNothing() {
    once();

    Result retry = cli("parked", "retry", config.toString(), "orders", "404");
    Result discard = cli("parked", "discard", "--store", "sqlite:" + db, "orders", "404");

    assertThat(retry.code()).as(retry.err()).isZero();
    assertThat(retry.out()).isEqualTo("0" + System.lineSeparator());
    assertThat(discard.code()).as(discard.err()).isZero();
    assertThat(discard.out()).isEqualTo("0" + System.lineSeparator());
  }

  @Test
  void aParkedEventIsListedAndRetryDeliversItAgainWithItsId() {
    String line = once().out().lines().findFirst().orElseThrow();
    String eventId = idOf(line);
    park(line, eventId);

    Result listed = cli("parked", "list", config.toString(), "orders");
    Result json = cli("parked", "list", "--store", "sqlite:" + db, "orders", "--json");

    assertThat(listed.code()).as(listed.err()).isZero();
    assertThat(listed.out().lines().toList())
        .singleElement()
        .asString()
        .startsWith("orders\t99\tpoison\t3\t2024-02-01T00:00:00Z\tIOException: disk full");
    assertThat(json.out().lines().toList())
        .singleElement()
        .asString()
        .contains(
            "\"poller\":\"orders\"",
            "\"id\":\"99\"",
            "\"eventId\":\"" + eventId + "\"",
            "\"error\":\"IOException: disk full\"");

    Result retry = cli("parked", "retry", config.toString(), "orders", "99");

    assertThat(retry.out()).isEqualTo("1" + System.lineSeparator());
    assertThat(cli("parked", "list", config.toString(), "orders").out()).isEmpty();
    assertThat(once().ids()).containsExactly(eventId);
  }

  @Test
  void discardDropsAParkedEventForGood() {
    String line = once().out().lines().findFirst().orElseThrow();
    park(line, idOf(line));

    Result discard = cli("parked", "discard", "--store", "sqlite:" + db, "orders", "99", "100");

    assertThat(discard.out()).isEqualTo("1" + System.lineSeparator());
    assertThat(once().ids()).isEmpty();
  }

  @Test
  void partitionSelectsOneKeyAndAnUnknownPartitionExitsTwo() {
    once();

    Result known = cli("parked", "list", config.toString(), "orders", "--partition", "");
    Result unknown = cli("parked", "list", config.toString(), "orders", "--partition", "eu");

    assertThat(known.code()).as(known.err()).isZero();
    assertThat(unknown.code()).isEqualTo(Main.USAGE);
    assertThat(unknown.err()).contains("poller orders: no partition 'eu'");
  }

  @Test
  void pauseByStoreUriMakesTheNextRunSkipThePoller() {
    once();

    Result pause = cli("pause", "--store", "sqlite:" + db, "orders");

    assertThat(pause.code()).as(pause.err()).isZero();
    orders.add("{\"id\":3,\"updatedAt\":\"2024-01-03T00:00:00Z\"}");
    Result skipped = once();
    assertThat(skipped.out()).isEmpty();
    assertThat(skipped.err()).contains("poller orders: skipped (paused)");
    assertThat(cli("resume", config.toString(), "orders").code()).isZero();
    assertThat(once().ids()).hasSize(1);
  }

  @Test
  void aStoreUriWithoutThePollerExitsTwoNamingWhatItHolds() {
    once();

    Result r = cli("trigger", "--store", "sqlite:" + db, "invoices");

    assertThat(r.code()).isEqualTo(Main.USAGE);
    assertThat(r.err().lines().toList())
        .singleElement()
        .asString()
        .contains("no state for poller invoices (it holds: orders)");
  }

  @Test
  void aStoreThatIsNotADatabaseExitsOne() throws IOException {
    Path garbage = dir.resolve("garbage.db");
    Files.writeString(
        garbage, "this is not a database, just some text that is long enough ".repeat(40));

    Result r = cli("parked", "list", "--store", "sqlite:" + garbage, "orders");

    assertThat(r.code()).isEqualTo(Main.FAILED);
    assertThat(r.err().lines().toList()).singleElement().asString().startsWith("watukuy: ");
  }

  @Test
  void everyCommandHasHelp() {
    for (String command : COMMANDS) {
      String[] words = (command + " --help").split(" ");

      Result r = cli(words);

      assertThat(r.code()).as(command).isZero();
      assertThat(r.out()).as(command).contains("Usage:");
    }
  }

  @Test
  void migrateWithoutArgumentsAsksForOneOfTheTwo() {
    Result none = cli("migrate");
    Result both = cli("migrate", config.toString(), "--store", "sqlite:" + db);

    assertThat(none.code()).isEqualTo(Main.USAGE);
    assertThat(none.err())
        .isEqualTo("watukuy migrate: give CONFIG or --store URI" + System.lineSeparator());
    assertThat(both.code()).isEqualTo(Main.USAGE);
    assertThat(both.err())
        .isEqualTo(
            "watukuy migrate: give CONFIG or --store URI, not both" + System.lineSeparator());
  }

  @Test
  void anUnknownCommandIsNamedWithTheCommandsThereAre() {
    Result top = cli("frob");
    Result effects = cli("effects", "frob");

    assertThat(top.code()).isEqualTo(Main.USAGE);
    assertThat(top.err()).startsWith("watukuy: unknown command 'frob' (one of: run, ");
    assertThat(effects.code()).isEqualTo(Main.USAGE);
    assertThat(effects.err())
        .isEqualTo(
            "watukuy effects: unknown command 'frob' (one of: list, show, skip, quarantine,"
                + " release, rewind, plan, forget, retry) (see watukuy effects --help)"
                + System.lineSeparator());
  }

  @Test
  void aParkedIdThatIsNoIdIsAUsageErrorNamingIt() {
    once();

    Result retry = cli("parked", "retry", config.toString(), "orders", "12", "abc");
    Result discard = cli("parked", "discard", config.toString(), "orders", "invalid-XYZ");

    assertThat(retry.code()).isEqualTo(Main.USAGE);
    assertThat(retry.out()).isEmpty();
    assertThat(retry.err())
        .isEqualTo(
            "watukuy parked retry: parked ID 'abc' is not an id of parked list (a whole"
                + " number, or invalid- and 16 hex digits) (see watukuy parked retry --help)"
                + System.lineSeparator());
    assertThat(discard.code()).isEqualTo(Main.USAGE);
    assertThat(discard.err())
        .startsWith("watukuy parked discard: parked ID 'invalid-XYZ' is not an id");
    assertThat(
            cli("parked", "discard", config.toString(), "orders", "invalid-0123456789abcdef")
                .code())
        .isZero();
  }

  @Test
  void commandsThatNeedConfigHideStoreFromTheirHelpAndStillExplainWhy() {
    for (String command : List.of("reset-cursor", "backfill", "replay")) {
      assertThat(cli(command, "--help").out()).as(command).doesNotContain("--store=URI");
    }
    Result given = cli("reset-cursor", "--store", "sqlite:" + db, "orders", "--initial");
    assertThat(given.code()).isEqualTo(Main.USAGE);
    assertThat(given.err())
        .startsWith("watukuy reset-cursor: reset-cursor needs CONFIG, not --store");
    assertThat(cli("parked", "list", "--help").out()).contains("--store=URI");
  }

  @Test
  void anUnknownOptionIsOneLineAndExitsTwo() {
    Result r = cli("pause", config.toString(), "orders", "--region", "eu");

    assertThat(r.code()).isEqualTo(Main.USAGE);
    assertThat(r.err().lines().toList())
        .singleElement()
        .asString()
        .startsWith("watukuy pause: Unknown option: '--region'");
  }

  private static String idOf(String line) {
    Matcher m = EVENT_ID.matcher(line);
    assertThat(m.find()).isTrue();
    return m.group(1);
  }

  /** Parks a delivered event as the dispatcher would after its retries ran out. */
  @ReadsWallClock("writes the store at the time the CLI, on the system clock, reads it next")
  private void park(String deliveredLine, String eventId) {
    String envelope = deliveredLine.replace(",\"attempt\":1}", "}");
    Instant now = Instant.now();
    PollerKey key = PollerKey.of("orders");
    try (StateStore store = SqliteStore.builder(db).build()) {
      Lease lease = store.acquireLease(key, "test", Duration.ofSeconds(5), now).orElseThrow();
      store.parkEvent(
          key,
          lease,
          new ParkedRow(
              "99",
              ParkedKind.POISON,
              99L,
              eventId,
              "1",
              envelope,
              null,
              "{\"name\":\"IOException\",\"message\":\"disk full\",\"stack\":null,\"history\":[]}",
              3,
              Instant.parse("2024-02-01T00:00:00Z"),
              null));
      store.releaseLease(key, lease);
    }
  }
}
