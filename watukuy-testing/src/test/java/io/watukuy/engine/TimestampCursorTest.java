package io.watukuy.engine;

import static io.watukuy.engine.Items.item;
import static io.watukuy.engine.Items.liveCursor;
import static io.watukuy.engine.Items.page;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.watukuy.ConfigException;
import io.watukuy.Cursors;
import io.watukuy.FetchException;
import io.watukuy.Fetcher;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.TimestampCursor;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import io.watukuy.testing.FakeApi;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The timestamp strategy (docs/architecture.md, "timestamp", and the five things that go wrong with
 * timestamps, numbered as there).
 */
class TimestampCursorTest {
  static final PollerKey ORDERS = PollerKey.of("orders");
  static final Instant T = Instant.parse("2026-03-01T09:30:00Z");

  final Fixture f = new Fixture();
  final Recorder handler = new Recorder();

  // ---- pitfalls

  @Test
  void pitfall1TiesAtThePageBoundaryAreNeitherSkippedNorRefetchedForever() {
    // Three items before the tie, then nine sharing one timestamp across a page boundary of 5.
    for (int i = 1; i <= 3; i++) f.api.putAt(id(i), Map.of("n", i), T.minusSeconds(60L * (4 - i)));
    for (int i = 4; i <= 12; i++) f.api.putAt(id(i), Map.of("n", i), T);
    List<Watermark> sent = new ArrayList<>();
    Poller<JsonNode> orders = f.timestamp("orders", 5).fetch(recording(sent, 5)).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, handler);

    KeyReport first = w.tick().poller("orders").orElseThrow();

    String tie = FakeApi.iso(T);
    assertThat(first.error()).isNull();
    assertThat(first.pages()).isEqualTo(3);
    assertThat(sent)
        .containsExactly(
            new Watermark(null, null), new Watermark(tie, "o05"), new Watermark(tie, "o10"));
    List<String> all = new ArrayList<>();
    for (int i = 1; i <= 12; i++) all.add(id(i) + ":created");
    assertThat(handler.changes()).containsExactlyElementsOf(all);
    assertThat(liveCursor(f.store, ORDERS)).isEqualTo(cursorJson(tie, "o12"));

    f.nextCycle();
    KeyReport second = w.tick().poller("orders").orElseThrow();

    assertThat(second.pages()).isEqualTo(1);
    assertThat(sent).last().isEqualTo(new Watermark(tie, "o12"));
    assertThat(second.eventsCommitted()).isZero();
    assertThat(handler.changes()).hasSize(12);
  }

  @Test
  void pitfall2LagCatchesALateCommitThatALaglessPollerMisses() {
    Poller<JsonNode> naive = f.timestamp("naive", 10).build();
    Poller<JsonNode> lagged =
        versioned(
            "lagged",
            Cursors.timestamp("updatedAt").tieBreak("id").lag(Duration.ofSeconds(30)).build(),
            f.api.timestampFetcher(10));
    Recorder naiveEvents = new Recorder();
    Recorder laggedEvents = new Recorder();
    Watukuy w =
        f.engine("a")
            .poller(naive)
            .poller(lagged)
            .build()
            .on(naive, naiveEvents)
            .on(lagged, laggedEvents);

    f.api.put("a", Map.of()); // 10:00:00
    f.clock.advance(Duration.ofSeconds(3));
    f.api.stage("b", Map.of()); // stamped 10:00:03, invisible until its transaction commits
    f.clock.advance(Duration.ofSeconds(2));
    f.api.put("c", Map.of()); // 10:00:05
    w.tick();

    assertThat(naiveEvents.changes()).containsExactly("a:created", "c:created");
    assertThat(liveCursor(f.store, PollerKey.of("naive")).get("value").asText())
        .isEqualTo("2026-03-01T10:00:05.000Z");
    // Everything is newer than now - 30 s: dropped from the page and from the watermark.
    assertThat(laggedEvents.changes()).isEmpty();
    assertThat(watermarkValue(PollerKey.of("lagged"))).isNull();

    f.clock.advance(Duration.ofSeconds(2));
    f.api.commit("b"); // visible at 10:00:07 with updatedAt 10:00:03
    f.nextCycle();
    w.tick();
    f.nextCycle();
    w.tick();

    assertThat(naiveEvents.changes()).containsExactly("a:created", "c:created");
    assertThat(laggedEvents.changes()).containsExactly("a:created", "b:created", "c:created");
  }

  @Test
  void pitfall3OverlapRescansBeforeTheWatermarkWithoutMovingTheStoredCursor() {
    List<Watermark> sent = new ArrayList<>();
    Poller<JsonNode> orders =
        versioned(
            "orders",
            Cursors.timestamp("updatedAt").tieBreak("id").overlap(Duration.ofMinutes(2)).build(),
            recording(sent, 10));
    Watukuy w = f.engine("a").poller(orders).build().on(orders, handler);
    f.api.put("a", Map.of()); // 10:00:00
    f.clock.advance(Duration.ofSeconds(10));
    f.api.put("b", Map.of()); // 10:00:10
    w.tick();
    JsonNode stored = cursorJson("2026-03-01T10:00:10.000Z", "b");
    assertThat(liveCursor(f.store, ORDERS)).isEqualTo(stored);

    // A writer with a slow clock stamps an item before the watermark.
    f.api.putAt("skewed", Map.of(), Instant.parse("2026-03-01T10:00:05Z"));
    f.nextCycle();
    KeyReport second = w.tick().poller("orders").orElseThrow();

    assertThat(sent).last().isEqualTo(new Watermark("2026-03-01T09:58:10.000Z", null));
    // a and b were fetched again with unchanged versions: no events for them.
    assertThat(second.eventsCommitted()).isEqualTo(1);
    assertThat(handler.changes()).containsExactly("a:created", "b:created", "skewed:created");
    assertThat(liveCursor(f.store, ORDERS)).isEqualTo(stored);

    f.nextCycle();
    w.tick();
    assertThat(sent).last().isEqualTo(new Watermark("2026-03-01T09:58:10.000Z", null));
    assertThat(handler.changes()).hasSize(3);
  }

  @Test
  void overlapIsAppliedOncePerCycleSoABurstLargerThanAPageIsPassed() {
    // Five items within the two-minute overlap window, two per page.
    for (int i = 1; i <= 5; i++) f.api.putAt(id(i), Map.of(), T.plusSeconds(i));
    List<Watermark> sent = new ArrayList<>();
    Poller<JsonNode> orders =
        versioned(
            "orders",
            Cursors.timestamp("updatedAt").tieBreak("id").overlap(Duration.ofMinutes(2)).build(),
            recording(sent, 2));
    Watukuy w = f.engine("a").poller(orders).build().on(orders, handler);

    KeyReport first = w.tick().poller("orders").orElseThrow();

    // Within a cycle the keyset continues exactly where the last page ended.
    assertThat(first.truncated()).isFalse();
    assertThat(sent)
        .containsExactly(
            new Watermark(null, null),
            new Watermark(FakeApi.iso(T.plusSeconds(2)), "o02"),
            new Watermark(FakeApi.iso(T.plusSeconds(4)), "o04"));
    assertThat(handler.changes()).hasSize(5);

    f.nextCycle();
    KeyReport second = w.tick().poller("orders").orElseThrow();

    // The overlap re-scan happens once, on the cycle's first request.
    assertThat(second.truncated()).isFalse();
    assertThat(sent.subList(3, sent.size()))
        .containsExactly(
            new Watermark(FakeApi.iso(T.plusSeconds(5).minus(Duration.ofMinutes(2))), null),
            new Watermark(FakeApi.iso(T.plusSeconds(5)), "o05"));
    assertThat(handler.changes()).hasSize(5);
  }

  @Test
  void pitfall4CustomParseAndFormatHandleAShapeTheDefaultParserDoesNot() {
    DateTimeFormatter shape =
        DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);
    TimestampCursor cursor =
        Cursors.timestamp("modified")
            .tieBreak("id")
            .initial(null)
            .overlap(Duration.ofMinutes(5))
            .parse(raw -> LocalDateTime.parse(raw.replace(' ', 'T')).toInstant(ZoneOffset.UTC))
            .format(shape::format)
            .build();
    JsonNode a = item("id", "a", "modified", "2026-03-01 09:59:00");
    JsonNode b = item("id", "b", "modified", "2026-03-01 10:00:00");
    Script<Watermark> script = new Script<Watermark>().then(page(a, b)).then(page(a, b));
    Poller<JsonNode> orders = scripted(cursor, script);
    Watukuy w = f.engine("a").poller(orders).build().on(orders, handler);

    w.tick();
    assertThat(liveCursor(f.store, ORDERS)).isEqualTo(cursorJson("2026-03-01 10:00:00", "b"));

    f.nextCycle();
    w.tick();

    assertThat(script.cursors())
        .containsExactly(new Watermark(null, null), new Watermark("2026-03-01 09:55:00", null));
    assertThat(handler.changes()).containsExactly("a:created", "b:created");
    assertThat(liveCursor(f.store, ORDERS)).isEqualTo(cursorJson("2026-03-01 10:00:00", "b"));
  }

  @Test
  void
      pitfall4DefaultParserReadsEpochSecondsAndMillisAsStringsOrNumbersAndOverlapMirrorsTheShape() {
    Instant earlier = Instant.parse("2026-03-01T09:59:00Z");
    Instant later = Instant.parse("2026-03-01T10:00:00Z");
    JsonNodeFactory json = JsonNodeFactory.instance;
    String sEarlier = Long.toString(earlier.getEpochSecond());
    String sLater = Long.toString(later.getEpochSecond());
    String msEarlier = Long.toString(earlier.toEpochMilli());
    String msLater = Long.toString(later.toEpochMilli());
    assertThat(sLater).hasSize(10);
    assertThat(msLater).hasSize(13);

    // The stored value is the server's own text; the overlap value (1 min back) has its shape.
    assertOverlapMirrorsShape(json.textNode(sEarlier), json.textNode(sLater), sLater, sEarlier);
    assertOverlapMirrorsShape(
        json.numberNode(earlier.getEpochSecond()),
        json.numberNode(later.getEpochSecond()),
        sLater,
        sEarlier);
    assertOverlapMirrorsShape(json.textNode(msEarlier), json.textNode(msLater), msLater, msEarlier);
    assertOverlapMirrorsShape(
        json.numberNode(earlier.toEpochMilli()),
        json.numberNode(later.toEpochMilli()),
        msLater,
        msEarlier);
    assertOverlapMirrorsShape(
        json.textNode("2026-03-01T09:59:00Z"),
        json.textNode("2026-03-01T10:00:00Z"),
        "2026-03-01T10:00:00Z",
        "2026-03-01T09:59:00Z");
    assertOverlapMirrorsShape(
        json.textNode("2026-03-01T09:59:00.000Z"),
        json.textNode("2026-03-01T10:00:00.000Z"),
        "2026-03-01T10:00:00.000Z",
        "2026-03-01T09:59:00.000Z");
  }

  @Test
  void pitfall4DefaultParserReadsIsoWithAnOffsetAndOverlapKeepsTheInstantArithmeticRight() {
    Script<Watermark> script =
        new Script<Watermark>()
            .then(page(item("id", "a", "updatedAt", "2026-03-01T11:00:00+01:00")))
            .then(page());
    Poller<JsonNode> orders =
        scripted(
            Cursors.timestamp("updatedAt").tieBreak("id").overlap(Duration.ofMinutes(1)).build(),
            script);
    Watukuy w = f.engine("a").poller(orders).build().on(orders, handler);

    w.tick();
    f.nextCycle();
    w.tick();

    assertThat(liveCursor(f.store, ORDERS).get("value").asText())
        .isEqualTo("2026-03-01T11:00:00+01:00");
    String sent = script.cursors().get(1).value();
    assertThat(OffsetDateTime.parse(sent).toInstant())
        .isEqualTo(Instant.parse("2026-03-01T09:59:00Z"));
  }

  @Test
  void pitfall4UnparseableCursorValueIsAConfigExceptionNamingTheFieldAndTheRawString() {
    Script<Watermark> script =
        new Script<Watermark>().then(page(item("id", "a", "updatedAt", "2026-03-01T10:00:00Z")));

    // Caught when the poller is built, before anything is fetched or stored.
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                scripted(
                    Cursors.timestamp("updatedAt").tieBreak("id").initial("yesterday").build(),
                    script))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("orders")
        .hasMessageContaining("updatedAt")
        .hasMessageContaining("yesterday");
    assertThat(script.requests()).isEmpty();
  }

  @Test
  void pitfall4UnparseableCursorReturnedByFetchIsAConfigExceptionAndMovesNothing() {
    Script<Watermark> script =
        new Script<Watermark>()
            .then(page(item("id", "a", "updatedAt", "2026-03-01T10:00:00Z")).withCursor("soon"));
    Poller<JsonNode> orders =
        scripted(Cursors.timestamp("updatedAt").tieBreak("id").build(), script);
    Watukuy w = f.engine("a").poller(orders).build().on(orders, handler);

    KeyReport report = w.tick().poller("orders").orElseThrow();

    assertThat(report.error())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("updatedAt")
        .hasMessageContaining("soon");
    assertThat(f.store.countItems(ORDERS)).isZero();
    assertThat(liveCursor(f.store, ORDERS)).isNull();
  }

  @Test
  void pitfall5FirstRequestCarriesTheInitialStringVerbatimAndNullMeansFromTheBeginning() {
    Script<Watermark> fromDate = new Script<>();
    Script<Watermark> fromStart = new Script<>();
    Poller<JsonNode> dated =
        scripted(
            "dated",
            Cursors.timestamp("updatedAt").tieBreak("id").initial("2026-01-01T00:00:00Z").build(),
            fromDate);
    Poller<JsonNode> all =
        scripted(
            "all", Cursors.timestamp("updatedAt").tieBreak("id").initial(null).build(), fromStart);
    Watukuy w = f.engine("a").poller(dated).poller(all).build();

    w.tick();

    assertThat(fromDate.cursors()).containsExactly(new Watermark("2026-01-01T00:00:00Z", null));
    assertThat(fromStart.cursors()).containsExactly(new Watermark(null, null));
  }

  @Test
  void initialCursorIsFilteredByTheApiAndTheWatermarkStartsFromIt() {
    f.api.putAt("old", Map.of(), Instant.parse("2025-12-31T23:00:00Z"));
    f.api.put("new", Map.of());
    Poller<JsonNode> orders =
        versioned(
            "orders",
            Cursors.timestamp("updatedAt")
                .tieBreak("id")
                .initial("2026-01-01T00:00:00.000Z")
                .build(),
            f.api.timestampFetcher(10));
    Watukuy w = f.engine("a").poller(orders).build().on(orders, handler);

    w.tick();

    assertThat(handler.changes()).containsExactly("new:created");
    assertThat(liveCursor(f.store, ORDERS))
        .isEqualTo(cursorJson("2026-03-01T10:00:00.000Z", "new"));
  }

  // ---- the keyset

  @Test
  void numericTieBreaksCompareAsNumbers() {
    String at = "2026-03-01T10:00:00Z";
    Script<Watermark> script =
        new Script<Watermark>()
            .then(page(item("id", 8, "updatedAt", at), item("id", 9, "updatedAt", at)))
            .then(page(item("id", 10, "updatedAt", at)))
            .then(page());
    Poller<JsonNode> orders =
        scripted(Cursors.timestamp("updatedAt").tieBreak("id").build(), script);
    Watukuy w = f.engine("a").poller(orders).build().on(orders, handler);

    w.tick();
    f.nextCycle();
    w.tick();
    f.nextCycle();
    w.tick();

    // 10 > 9 as numbers, though "10" < "9" as strings.
    assertThat(script.cursors())
        .containsExactly(
            new Watermark(null, null), new Watermark(at, "9"), new Watermark(at, "10"));
    assertThat(handler.changes()).containsExactly("8:created", "9:created", "10:created");
  }

  @Test
  void numericTieBreaksInAscendingNumericOrderAreNotABackwardsPage() {
    String at = "2026-03-01T10:00:00Z";
    Script<Watermark> script =
        new Script<Watermark>()
            .then(page(item("id", 9, "updatedAt", at), item("id", 10, "updatedAt", at)));
    Poller<JsonNode> orders =
        scripted(Cursors.timestamp("updatedAt").tieBreak("id").build(), script);
    Watukuy w = f.engine("a").poller(orders).build().on(orders, handler);

    KeyReport report = w.tick().poller("orders").orElseThrow();

    assertThat(report.error()).isNull();
    assertThat(liveCursor(f.store, ORDERS)).isEqualTo(cursorJson(at, "10"));
  }

  @Test
  void stringTieBreaksCompareByStringOrder() {
    String at = "2026-03-01T10:00:00Z";
    Script<Watermark> script =
        new Script<Watermark>()
            .then(page(item("id", "10", "updatedAt", at), item("id", "9", "updatedAt", at)))
            .then(page());
    Poller<JsonNode> orders =
        scripted(Cursors.timestamp("updatedAt").tieBreak("id").build(), script);
    Watukuy w = f.engine("a").poller(orders).build().on(orders, handler);

    KeyReport report = w.tick().poller("orders").orElseThrow();
    f.nextCycle();
    w.tick();

    assertThat(report.error()).isNull();
    assertThat(script.cursors()).last().isEqualTo(new Watermark(at, "9"));
  }

  @Test
  void stringTieBreaksOutOfStringOrderAreABackwardsPage() {
    String at = "2026-03-01T10:00:00Z";
    Script<Watermark> script =
        new Script<Watermark>()
            .then(page(item("id", "9", "updatedAt", at), item("id", "10", "updatedAt", at)));
    Poller<JsonNode> orders =
        scripted(Cursors.timestamp("updatedAt").tieBreak("id").build(), script);
    Watukuy w = f.engine("a").poller(orders).build().on(orders, handler);

    KeyReport report = w.tick().poller("orders").orElseThrow();

    assertThat(report.error()).isInstanceOf(FetchException.class);
    assertThat(((FetchException) report.error()).itemIndex()).isEqualTo(1);
    assertThat(f.store.countItems(ORDERS)).isZero();
  }

  @Test
  void tieAtTheWatermarkOnlyGrowsTheTieBreakAndKeepsTheStoredString() {
    // The same instant written another way must not replace the server's stored string.
    Script<Watermark> script =
        new Script<Watermark>()
            .then(page(item("id", "a", "updatedAt", "2026-03-01T10:00:00Z")))
            .then(page(item("id", "b", "updatedAt", "2026-03-01T10:00:00.000Z")));
    Poller<JsonNode> orders =
        scripted(Cursors.timestamp("updatedAt").tieBreak("id").build(), script);
    Watukuy w = f.engine("a").poller(orders).build().on(orders, handler);

    w.tick();
    f.nextCycle();
    w.tick();

    assertThat(liveCursor(f.store, ORDERS)).isEqualTo(cursorJson("2026-03-01T10:00:00Z", "b"));
  }

  @Test
  void watermarkStoresTheServersOwnStringNotAReserializedDate() {
    Script<Watermark> script =
        new Script<Watermark>()
            .then(page(item("id", "a", "updatedAt", "2026-03-01T11:00:00.5+01:00")));
    Poller<JsonNode> orders = scripted(Cursors.timestamp("updatedAt").build(), script);
    Watukuy w = f.engine("a").poller(orders).build().on(orders, handler);

    w.tick();

    assertThat(liveCursor(f.store, ORDERS))
        .isEqualTo(cursorJson("2026-03-01T11:00:00.5+01:00", null));
  }

  @Test
  void nestedFieldAndTieBreakAreReadByDotPath() {
    Script<Watermark> script =
        new Script<Watermark>()
            .then(
                page(
                    item("id", "a", "meta", Map.of("updatedAt", "2026-03-01T10:00:00Z", "seq", 1)),
                    item(
                        "id", "b", "meta", Map.of("updatedAt", "2026-03-01T10:00:00Z", "seq", 2))));
    Poller<JsonNode> orders =
        scripted(Cursors.timestamp("meta.updatedAt").tieBreak("meta.seq").build(), script);
    Watukuy w = f.engine("a").poller(orders).build().on(orders, handler);

    w.tick();

    assertThat(liveCursor(f.store, ORDERS)).isEqualTo(cursorJson("2026-03-01T10:00:00Z", "2"));
  }

  @Test
  void stringCursorReturnedByFetchOverridesTheWatermarkWithoutLagFiltering() {
    f.api.put("a", Map.of());
    f.api.put("b", Map.of());
    List<Watermark> sent = new ArrayList<>();
    Poller<JsonNode> orders =
        versioned(
            "orders",
            Cursors.timestamp("updatedAt").tieBreak("id").lag(Duration.ofSeconds(30)).build(),
            ctx -> {
              sent.add(ctx.cursor());
              return f.api.updatedSince(ctx.cursor(), 10).withCursor("2026-03-01T09:59:55Z");
            });
    Watukuy w = f.engine("a").poller(orders).build().on(orders, handler);

    w.tick();

    // Both items are newer than now - lag, yet the server's own watermark is trusted as is.
    assertThat(handler.changes()).containsExactly("a:created", "b:created");
    assertThat(liveCursor(f.store, ORDERS)).isEqualTo(cursorJson("2026-03-01T09:59:55Z", null));

    f.nextCycle();
    w.tick();
    assertThat(sent).last().isEqualTo(new Watermark("2026-03-01T09:59:55Z", null));
  }

  @Test
  void pageThatGoesBackwardsFailsTheCycleNamingThePollerAndCommitsNothing() {
    Script<Watermark> script =
        new Script<Watermark>()
            .then(page(item("id", "x", "updatedAt", "2026-03-01T09:00:00Z")))
            .then(
                page(
                    item("id", "a", "updatedAt", "2026-03-01T10:00:05Z"),
                    item("id", "b", "updatedAt", "2026-03-01T10:00:01Z")))
            .then(page(item("id", "a", "updatedAt", "2026-03-01T10:00:05Z")));
    Poller<JsonNode> orders =
        scripted(Cursors.timestamp("updatedAt").tieBreak("id").build(), script);
    Watukuy w = f.engine("a").poller(orders).build().on(orders, handler);
    w.tick();
    JsonNode before = liveCursor(f.store, ORDERS);
    f.nextCycle();

    KeyReport report = w.tick().poller("orders").orElseThrow();

    assertThat(report.error()).isInstanceOf(FetchException.class).hasMessageContaining("orders");
    FetchException e = (FetchException) report.error();
    assertThat(e.poller()).isEqualTo("orders");
    assertThat(e.page()).isEqualTo(1);
    assertThat(e.itemIndex()).isEqualTo(1);
    assertThat(liveCursor(f.store, ORDERS)).isEqualTo(before);
    assertThat(f.store.countItems(ORDERS)).isEqualTo(1);
    assertThat(handler.changes()).containsExactly("x:created");

    f.nextCycle();
    w.tick();
    assertThat(script.cursors()).last().isEqualTo(new Watermark("2026-03-01T09:00:00Z", "x"));
    assertThat(handler.changes()).containsExactly("x:created", "a:created");
  }

  @Test
  void itemWithAMissingOrUnparseableFieldIsDiffedButNeverMovesTheWatermark() {
    Script<Watermark> script =
        new Script<Watermark>()
            .then(
                page(
                    item("id", "a", "updatedAt", "2026-03-01T09:00:00Z"),
                    item("id", "b"),
                    item("id", "c", "updatedAt", "not a time")))
            .then(page(item("id", "d"), item("id", "e", "updatedAt", "2026-13-45T99:00:00Z")));
    Poller<JsonNode> orders =
        scripted(Cursors.timestamp("updatedAt").tieBreak("id").build(), script);
    Watukuy w = f.engine("a").poller(orders).build().on(orders, handler);

    w.tick();
    assertThat(handler.changes()).containsExactly("a:created", "b:created", "c:created");
    assertThat(liveCursor(f.store, ORDERS)).isEqualTo(cursorJson("2026-03-01T09:00:00Z", "a"));

    f.nextCycle();
    KeyReport second = w.tick().poller("orders").orElseThrow();

    assertThat(second.error()).isNull();
    assertThat(handler.changes())
        .containsExactly("a:created", "b:created", "c:created", "d:created", "e:created");
    assertThat(liveCursor(f.store, ORDERS)).isEqualTo(cursorJson("2026-03-01T09:00:00Z", "a"));
  }

  @Test
  void lagKeepsOlderItemsOfAPageAndLeavesNewerOnesForTheNextCycle() {
    Instant old = Instant.parse("2026-03-01T09:00:00Z");
    for (String id : List.of("o1", "o2", "o3")) f.api.putAt(id, Map.of(), old);
    f.api.put("o4", Map.of()); // 10:00:00, newer than now - lag
    f.api.put("o5", Map.of());
    Poller<JsonNode> orders =
        versioned(
            "orders",
            Cursors.timestamp("updatedAt").tieBreak("id").lag(Duration.ofSeconds(30)).build(),
            f.api.timestampFetcher(2));
    Watukuy w = f.engine("a").poller(orders).build().on(orders, handler);

    KeyReport first = w.tick().poller("orders").orElseThrow();

    // Page 1 (o1, o2) is old; page 2 (o3, o4) drops o4 and ends the lane for this cycle.
    assertThat(first.pages()).isEqualTo(2);
    assertThat(f.api.requests()).isEqualTo(2);
    assertThat(handler.changes()).containsExactly("o1:created", "o2:created", "o3:created");
    assertThat(liveCursor(f.store, ORDERS)).isEqualTo(cursorJson(FakeApi.iso(old), "o3"));

    f.nextCycle(); // now - lag = 10:00:00: o4 and o5 are old enough
    w.tick();

    assertThat(handler.changes())
        .containsExactly("o1:created", "o2:created", "o3:created", "o4:created", "o5:created");
    assertThat(liveCursor(f.store, ORDERS)).isEqualTo(cursorJson("2026-03-01T10:00:00.000Z", "o5"));
  }

  @Test
  void pageFromWhichLagDroppedItemsEndsTheLiveLaneInsteadOfRefetchingTheSameRows() {
    JsonNode fresh = item("id", "a", "updatedAt", "2026-03-01T10:00:00Z");
    Script<Watermark> script = new Script<>();
    for (int i = 0; i < 5; i++) script.then(page(fresh).withHasMore(true));
    Poller<JsonNode> orders =
        scripted(
            Cursors.timestamp("updatedAt").tieBreak("id").lag(Duration.ofSeconds(30)).build(),
            script);
    Watukuy w = f.engine("a").poller(orders).build().on(orders, handler);

    KeyReport first = w.tick().poller("orders").orElseThrow();

    assertThat(first.error()).isNull();
    assertThat(first.pages()).isEqualTo(1);
    assertThat(script.requests()).hasSize(1);
    assertThat(handler.changes()).isEmpty();
    assertThat(watermarkValue(ORDERS)).isNull();
  }

  // ---- helpers

  private static String id(int i) {
    return String.format("o%02d", i);
  }

  private Fetcher<JsonNode, Watermark> recording(List<Watermark> sent, int limit) {
    return ctx -> {
      sent.add(ctx.cursor());
      return f.api.updatedSince(ctx.cursor(), limit);
    };
  }

  /** Like {@link Fixture#timestamp} (identity id, version updatedAt#rev) with another cursor. */
  private static Poller<JsonNode> versioned(
      String name, TimestampCursor cursor, Fetcher<JsonNode, Watermark> fetch) {
    return Poller.builder(name, JsonNode.class)
        .identity(n -> n.get("id"))
        .version(n -> n.get("updatedAt").asText() + "#" + n.get("rev").asText())
        .cursor(cursor)
        .fetch(fetch)
        .schedule(Fixture.FIXED)
        .build();
  }

  private Poller<JsonNode> scripted(TimestampCursor cursor, Script<Watermark> script) {
    return scripted("orders", cursor, script);
  }

  private static Poller<JsonNode> scripted(
      String name, TimestampCursor cursor, Script<Watermark> script) {
    return Poller.builder(name, JsonNode.class)
        .identity(n -> n.get("id"))
        .cursor(cursor)
        .fetch(script)
        .schedule(Fixture.FIXED)
        .build();
  }

  private static JsonNode cursorJson(String value, String tieBreak) {
    return Items.MAPPER.createObjectNode().put("value", value).put("tieBreak", tieBreak);
  }

  /** The stored watermark value, null when nothing (or a null value) is stored. */
  private String watermarkValue(PollerKey key) {
    JsonNode c = liveCursor(f.store, key);
    if (c == null || c.path("value").isNull() || c.path("value").isMissingNode()) return null;
    return c.get("value").asText();
  }

  private static void assertOverlapMirrorsShape(
      JsonNode earlier, JsonNode later, String stored, String sent) {
    Fixture fx = new Fixture();
    Script<Watermark> script =
        new Script<Watermark>()
            .then(page(item("id", "a", "ts", earlier), item("id", "b", "ts", later)))
            .then(page(item("id", "a", "ts", earlier), item("id", "b", "ts", later)));
    Poller<JsonNode> orders =
        scripted(
            "orders",
            Cursors.timestamp("ts").tieBreak("id").overlap(Duration.ofMinutes(1)).build(),
            script);
    Recorder events = new Recorder();
    Watukuy w = fx.engine("a").poller(orders).build().on(orders, events);

    w.tick();
    fx.nextCycle();
    w.tick();

    assertThat(liveCursor(fx.store, ORDERS))
        .as("stored for %s", later)
        .isEqualTo(cursorJson(stored, "b"));
    assertThat(script.cursors())
        .as("sent for %s", later)
        .containsExactly(new Watermark(null, null), new Watermark(sent, null));
    assertThat(events.changes())
        .as("events for %s", later)
        .containsExactly("a:created", "b:created");
  }
}
