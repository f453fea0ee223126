package io.watukuy.engine;

import static io.watukuy.engine.Items.liveCursor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ConfigException;
import io.watukuy.Cursors;
import io.watukuy.FetchException;
import io.watukuy.Fetcher;
import io.watukuy.KeyInspection;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.TimestampCursor;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.FaultyStore;
import io.watukuy.testing.KillPoint;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Unsorted listings, {@code TimestampCursor.sorted(false)} (issue 19 §5; docs/config.md, "Unsorted
 * listings"): an API that filters by modification time but orders its pages by id, as HubSpot's
 * contacts search does. Six contacts, two per page, ids c1..c6; every page is in timestamp order on
 * its own, but page 3 holds an item older than page 1's newest.
 */
class UnsortedListingTest {
  static final PollerKey CONTACTS = PollerKey.of("contacts");

  /** Cycle 1's contacts: created before the first cycle (the clock starts at 10:00:00). */
  static final Map<String, String> CREATED =
      Map.of(
          "c1", "2026-03-01T09:01:00Z",
          "c2", "2026-03-01T09:05:00Z",
          "c3", "2026-03-01T09:02:00Z",
          "c4", "2026-03-01T09:06:00Z",
          "c5", "2026-03-01T09:03:00Z",
          "c6", "2026-03-01T09:07:00Z");

  /** The largest timestamp of cycle 1's listing. */
  static final String NEWEST_CREATED = "2026-03-01T09:07:00.000Z";

  final Fixture f = new Fixture();
  final Recorder handler = new Recorder();
  final AtomicBoolean failPage3 = new AtomicBoolean();

  /**
   * The HubSpot loss, today: the watermark of page 1 commits before page 3 shows its older edit; a
   * page 3 that fails leaves that edit below every later query's filter.
   */
  @Test
  void sortedTrueLosesAnEditOnALaterPageWhenTheListingIsCutAfterPage2() {
    Watukuy w = engine(f.store, cursor(true));
    createAll();
    assertThat(w.tick().poller("contacts").orElseThrow().error()).isNull();
    editAll(); // c1 +10s, c3 +20s, c5 +30s, c2 +40s, c4 +50s, c6 +60s

    failPage3.set(true);
    f.nextCycle();
    KeyReport cut = w.tick().poller("contacts").orElseThrow();
    assertThat(cut.error()).isNotNull();
    // Page 2's newest (c4, 10:00:50) is stored, above c5's edit (10:00:30) that page 3 held.
    assertThat(liveCursor(f.store, CONTACTS).get("value").asText())
        .isEqualTo("2026-03-01T10:00:50.000Z");
    for (int i = 0; i < 3; i++) {
      afterBackoff();
      w.tick();
    }

    assertThat(handler.of("c6")).hasSize(2); // listed again: newer than the watermark
    assertThat(handler.of("c5")).hasSize(1); // created only: the edit is lost
  }

  @Test
  void sortedFalseDeliversEveryEditAcrossCyclesAndKeepsTheWatermarkWhenPage3Fails() {
    Watukuy w = engine(f.store, cursor(false));
    createAll();
    KeyReport first = w.tick().poller("contacts").orElseThrow();
    assertThat(first.error()).isNull();
    assertThat(first.pages()).isEqualTo(3);
    // Completed: min(largest seen 09:07, start 10:00 - lag 0) = the largest seen, as the API wrote.
    assertThat(watermark(f.store)).isEqualTo(NEWEST_CREATED);
    editAll();

    failPage3.set(true);
    f.nextCycle();
    KeyReport cut = w.tick().poller("contacts").orElseThrow();

    // Pages 1 and 2 are committed and delivered as they came; the watermark did not move.
    assertThat(handler.changes())
        .containsSubsequence("c1:updated", "c2:updated", "c3:updated", "c4:updated");
    assertThat(handler.of("c5")).hasSize(1);
    assertThat(watermark(f.store)).isEqualTo(NEWEST_CREATED);
    assertThat(cut.truncated()).isTrue();
    assertThat(cut.error()).isInstanceOf(FetchException.class);
    assertThat(cut.error().getMessage()).contains("page 3");
    assertThat(cut.error().getSuppressed())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(((FetchException) s).kind()).isEqualTo("WatermarkKept");
              assertThat(s.getMessage())
                  .contains("the watermark was kept at '" + NEWEST_CREATED + "'");
            });
    KeyInspection inspected = w.inspect().key(CONTACTS).orElseThrow();
    assertThat(inspected.lastError().message())
        .contains("HTTP 500 on page 3")
        .contains("the watermark was kept at '" + NEWEST_CREATED + "'")
        .contains("the next cycle lists again from it");

    afterBackoff();
    KeyReport next = w.tick().poller("contacts").orElseThrow();

    assertThat(next.error()).isNull();
    assertThat(next.pages()).isEqualTo(3);
    assertThat(next.eventsCommitted()).isEqualTo(2); // c5 and c6: pages 1 and 2 add nothing
    for (String id : List.of("c1", "c2", "c3", "c4", "c5", "c6"))
      assertThat(handler.of(id)).as(id).hasSize(2); // created, updated: every edit, once
    // Completed after 10:11: min(the largest seen, 10:01:00, the scan's start) is the largest.
    assertThat(watermark(f.store)).isEqualTo("2026-03-01T10:01:00.000Z");
  }

  @Test
  void aCompletedListingMovesTheWatermarkToStartMinusLagWhenThatIsSmaller() {
    // Every page advances the clock a minute: the scan's start is page 1's clock, not the end's.
    Watukuy w =
        engine(
            f.store,
            Cursors.timestamp("updatedAt").lag(Duration.ofMinutes(2)).sorted(false).build(),
            true);
    createAll();
    w.tick();
    // Start 10:00:00 - 2 min = 09:58:00 is after the largest seen (09:07): the largest seen.
    assertThat(watermark(f.store)).isEqualTo(NEWEST_CREATED);

    f.clock.advanceTo(Instant.parse("2026-03-01T10:10:00Z"));
    f.api.putAt("c5", Map.of("n", 5), Instant.parse("2026-03-01T10:09:30Z"));
    f.api.putAt("c2", Map.of("n", 2), Instant.parse("2026-03-01T10:09:00Z"));
    KeyReport second = w.tick().poller("contacts").orElseThrow();

    // Both are newer than start - lag and still delivered now: lag drops nothing of a page.
    assertThat(second.eventsCommitted()).isEqualTo(2);
    // Two pages (c2 and c5, then c6 listed again at the watermark): two minutes of fetching.
    assertThat(f.clock.now()).isEqualTo(Instant.parse("2026-03-01T10:12:00Z"));
    // min(10:09:30, 10:10:00 - 2 min) = 10:08:00, in the API's own shape, no tie-break.
    assertThat(watermark(f.store)).isEqualTo("2026-03-01T10:08:00.000Z");
    assertThat(liveCursor(f.store, CONTACTS).get("tieBreak").isNull()).isTrue();

    f.clock.advanceTo(Instant.parse("2026-03-01T10:20:00Z"));
    KeyReport third = w.tick().poller("contacts").orElseThrow();
    // Listed again, no events; now start - lag (10:18) is past them: the largest seen.
    assertThat(third.eventsCommitted()).isZero();
    assertThat(watermark(f.store)).isEqualTo("2026-03-01T10:09:30.000Z");
  }

  @Test
  void aListingCutAtThePageCapKeepsTheWatermarkAndIsReportedAsTruncated() {
    Poller<JsonNode> contacts = poller(cursor(false), false).maxPagesPerCycle(2).build();
    Watukuy w = f.engine("a").poller(contacts).build().on(contacts, handler);
    createAll();

    KeyReport cut = w.tick().poller("contacts").orElseThrow();

    assertThat(cut.truncated()).isTrue();
    assertThat(cut.error()).isInstanceOf(FetchException.class);
    assertThat(((FetchException) cut.error()).kind()).isEqualTo("ListingTruncated");
    assertThat(cut.error().getMessage())
        .contains("maxPagesPerCycle=2")
        .contains("the watermark was kept at its initial value");
    assertThat(handler.changes()).hasSize(4); // pages 1 and 2 delivered all the same
    assertThat(watermark(f.store)).isNull();
    assertThat(w.inspect().key(CONTACTS).orElseThrow().lastError().name())
        .isEqualTo("ListingTruncated");
  }

  @Test
  void aKillAfterPage2sCommitMovesNothingOnRestartAndTheNextListingHasNoDuplicates() {
    FaultyStore faulty = new FaultyStore(new MemoryStore());
    Watukuy a = engine(faulty, cursor(false));
    createAll();
    a.tick();
    assertThat(watermark(faulty.delegate())).isEqualTo(NEWEST_CREATED);
    editAll();

    // Page 1's commit goes through, page 2's is stored and then the process dies.
    faulty.arm(KillPoint.AFTER_COMMIT, CONTACTS, 1);
    f.nextCycle();
    a.tick();
    assertThat(faulty.fired()).contains(KillPoint.AFTER_COMMIT);
    assertThat(watermark(faulty.delegate())).isEqualTo(NEWEST_CREATED);

    // A new process on the same stored state, once the dead one's lease has expired.
    f.clock.advance(Watukuy.DEFAULT_LEASE_TTL.plus(Fixture.MIN));
    Recorder after = new Recorder();
    Poller<JsonNode> contacts = poller(cursor(false), false).build();
    Watukuy b = f.engine("b").store(faulty.delegate()).poller(contacts).build().on(contacts, after);
    KeyReport restarted = b.tick().poller("contacts").orElseThrow();

    assertThat(restarted.error()).isNull();
    assertThat(restarted.pages()).isEqualTo(3);
    // Page 2's events wait in the outbox and go out first; page 3's are the only new commits.
    assertThat(restarted.eventsCommitted()).isEqualTo(2);
    assertThat(after.changes())
        .containsExactlyInAnyOrder("c3:updated", "c4:updated", "c5:updated", "c6:updated");
    assertThat(handler.changes()).contains("c1:updated", "c2:updated");
    assertThat(watermark(faulty.delegate())).isEqualTo("2026-03-01T10:01:00.000Z");
  }

  @Test
  void everyPageOfAListingIsAskedWithTheSameCursorOverlapIncluded() {
    List<Watermark> sent = new java.util.concurrent.CopyOnWriteArrayList<>();
    Fetcher<JsonNode, Watermark> search = f.api.modifiedSinceFetcher(2);
    Poller<JsonNode> contacts =
        Poller.builder("contacts", JsonNode.class)
            .identity(n -> n.get("id"))
            .version(n -> n.get("updatedAt").asText())
            .cursor(
                Cursors.timestamp("updatedAt").overlap(Duration.ofMinutes(1)).sorted(false).build())
            .fetch(
                ctx -> {
                  sent.add(ctx.cursor());
                  return search.fetch(ctx);
                })
            .schedule(Fixture.FIXED)
            .build();
    Watukuy w = f.engine("a").poller(contacts).build().on(contacts, handler);
    createAll();
    w.tick();
    editAll();
    f.nextCycle();
    w.tick();

    Watermark first = new Watermark(null, null);
    // 09:07 minus the overlap, on page 1 and on every page after it.
    Watermark overlapped = new Watermark("2026-03-01T09:06:00.000Z", null);
    assertThat(sent).containsExactly(first, first, first, overlapped, overlapped, overlapped);
    assertThat(handler.changes()).hasSize(12);
  }

  @Test
  void anUnsortedListingCannotBeBackfilled() {
    Watukuy w = engine(f.store, cursor(false));
    assertThatThrownBy(() -> w.backfill("contacts", "2026-03-01T09:00:00Z", null, false))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("cursor.sorted false");
  }

  // ---- helpers

  static TimestampCursor cursor(boolean sorted) {
    return Cursors.timestamp("updatedAt").sorted(sorted).build();
  }

  Watukuy engine(io.watukuy.spi.StateStore store, TimestampCursor cursor) {
    return engine(store, cursor, false);
  }

  Watukuy engine(io.watukuy.spi.StateStore store, TimestampCursor cursor, boolean tick) {
    Poller<JsonNode> contacts = poller(cursor, tick).build();
    return f.engine("a").store(store).poller(contacts).build().on(contacts, handler);
  }

  Poller.Builder<JsonNode, Watermark> poller(TimestampCursor cursor, boolean clockPerPage) {
    Fetcher<JsonNode, Watermark> search = f.api.modifiedSinceFetcher(2);
    Fetcher<JsonNode, Watermark> fetch =
        ctx -> {
          if (ctx.page() == 3 && failPage3.compareAndSet(true, false))
            throw new IllegalStateException("HTTP 500 on page 3");
          var page = search.fetch(ctx);
          if (clockPerPage) f.clock.advance(Duration.ofMinutes(1));
          return page;
        };
    return Poller.builder("contacts", JsonNode.class)
        .identity(n -> n.get("id"))
        .version(n -> n.get("updatedAt").asText())
        .cursor(cursor)
        .fetch(fetch)
        .schedule(Fixture.FIXED);
  }

  /** Past any backoff of one failed cycle. */
  void afterBackoff() {
    f.clock.advance(Duration.ofMinutes(10));
  }

  void createAll() {
    CREATED.forEach((id, at) -> f.api.putAt(id, Map.of("n", id), Instant.parse(at)));
  }

  /** Edits every contact, ten seconds apart, so that each page is in timestamp order by itself. */
  void editAll() {
    for (String id : List.of("c1", "c3", "c5", "c2", "c4", "c6")) {
      f.clock.advance(Duration.ofSeconds(10));
      f.api.put(id, Map.of("n", id, "edited", true));
    }
  }

  static String watermark(io.watukuy.spi.StateStore store) {
    JsonNode c = liveCursor(store, CONTACTS);
    return c == null || c.get("value").isNull() ? null : c.get("value").asText();
  }
}
