package io.watukuy.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.StoreException;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.ParkedRow;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StatePatch;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Store contract, part two: the atomic {@code commitPoll} (G4), the key state and its patches, and
 * items with snapshot streaming. Runs as part of {@link StoreContractTest}.
 */
abstract class StoreCommitContract extends StoreCycleContract {
  // ------------------------------------------------------------------ commitPoll atomicity (G4)

  @Test
  void rejectedCommitWritesNothingAtAllOnAFreshKey() {
    Lease a = acquire(OWNER_A, T0);
    acquire(OWNER_B, a.expiresAt());

    assertLeaseLost(() -> store().commitPoll(KEY, a, fullBatch(1), a.expiresAt()));

    assertThat(store().loadState(KEY)).isEmpty();
    assertThat(store().countItems(KEY)).isZero();
    assertThat(store().countPending(KEY)).isZero();
    assertThat(store().countParked(KEY)).isZero();
    if (store().capabilities().log()) {
      assertThat(store().readLog(KEY, LogRange.ALL, NO_LIMIT)).isEmpty();
    }
  }

  /**
   * A commit that fails while it writes, on its second outbox row (a sequence already pending),
   * leaves no trace of its first row, its items, deletes, state patch, log rows or parked rows (G4;
   * docs/architecture.md, "Commit protocol", rule 4).
   */
  @Test
  void commitReusingAPendingSequenceFailsAndWritesNothing() {
    Lease a = acquire(OWNER_A, T0);
    seed(a);
    Optional<PollerState> state = store().loadState(KEY);
    Map<String, ItemRow> items = store().loadVersions(KEY, List.of("1", "2", "new"));
    List<OutboxRow> pending = store().loadPending(KEY, 0, NO_LIMIT);
    List<ParkedRow> parked = store().listParked(KEY, null, NO_LIMIT);
    CommitBatch reusing =
        batch(new StatePatch(Map.of("live", "\"cursor-2\""), ScheduleState.initial(1_000), 9, 4L))
            .items(item("1", "v2"), item("new", "v1"))
            .deletes("2")
            .events(event(4), event(2))
            .log(true)
            .parked(invalid("inv-2", T0))
            .build();

    assertThatThrownBy(() -> store().commitPoll(KEY, a, reusing, T0.plusSeconds(5)))
        .isInstanceOf(StoreException.class);

    assertThat(store().loadState(KEY)).isEqualTo(state);
    assertThat(store().loadVersions(KEY, List.of("1", "2", "new")))
        .containsExactlyInAnyOrderEntriesOf(items);
    assertThat(store().loadPending(KEY, 0, NO_LIMIT)).isEqualTo(pending);
    assertThat(store().listParked(KEY, null, NO_LIMIT)).isEqualTo(parked);
    if (store().capabilities().log()) {
      assertThat(store().readLog(KEY, LogRange.ALL, NO_LIMIT))
          .extracting(LoggedEvent::sequence)
          .containsExactly(1L, 2L, 3L);
    }
  }

  @Test
  void successfulCommitIsVisibleInFull() {
    Lease a = acquire(OWNER_A, T0);
    StatePatch patch =
        new StatePatch(
            Map.of("live", "{\"after\":\"2023-12-31T23:59:59Z\",\"id\":12345678901234567890}"),
            ScheduleState.initial(30_000).withState(ScheduleState.Status.POLLING),
            3,
            2L);
    ItemRow one = item("1", "v1");
    ItemRow two = item("2", null);
    ParkedRow invalid = invalid("inv-1", T0);

    commit(
        a,
        batch(patch).items(one, two).events(event(1), event(2)).log(true).parked(invalid),
        T0.plusMillis(250));

    assertThat(store().loadState(KEY)).contains(PollerState.create(patch, T0.plusMillis(250)));
    assertThat(store().loadVersions(KEY, List.of("1", "2")))
        .containsExactlyInAnyOrderEntriesOf(Map.of("1", one, "2", two));
    assertThat(store().loadPending(KEY, 0, NO_LIMIT)).containsExactly(event(1), event(2));
    assertThat(store().listParked(KEY, null, NO_LIMIT)).containsExactly(invalid);
    assertThat(store().listKeys(null)).containsExactly(KEY);
    if (store().capabilities().log()) {
      assertThat(store().readLog(KEY, LogRange.ALL, NO_LIMIT))
          .containsExactly(
              new LoggedEvent(1, event(1).event(), T0.plusMillis(250)),
              new LoggedEvent(2, event(2).event(), T0.plusMillis(250)));
    }
  }

  @Test
  void laterCommitReplacesTheCursorMapAndKeepsUnpatchedFields() {
    Lease a = acquire(OWNER_A, T0);
    ScheduleState schedule = ScheduleState.initial(60_000);
    commit(
        a,
        batch(new StatePatch(Map.of("live", "\"c1\"", "reconcile", "\"r1\""), schedule, 2, 5L)),
        T0);

    commit(
        a,
        batch(StatePatch.NONE.withCursors(Map.of("live", "\"c2\"")).withLastSequence(7)),
        T0.plusSeconds(5));

    PollerState state = store().loadState(KEY).orElseThrow();
    assertThat(state.cursors()).containsExactlyEntriesOf(Map.of("live", "\"c2\""));
    assertThat(state.schedule()).isEqualTo(schedule);
    assertThat(state.schemaVersion()).isEqualTo(2);
    assertThat(state.lastSequence()).isEqualTo(7);
    assertThat(state.createdAt()).isEqualTo(T0);
    assertThat(state.updatedAt()).isEqualTo(T0.plusSeconds(5));
  }

  @Test
  void commitUpsertsReplaceRowsAndDeletesRemoveThem() {
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE).items(item("1", "v1"), item("2", "v1"), item("3", "v1")), T0);
    ItemRow replaced =
        new ItemRow(
            "1",
            "v2",
            "b".repeat(64),
            2,
            "{\"id\":1,\"name\":\"Zoë ☃ 𝄞\",\"big\":12345678901234567890123}",
            "customer-9",
            T0.plusSeconds(5));

    commit(
        a, batch(StatePatch.NONE).items(replaced).deletes("2", "never-stored"), T0.plusSeconds(5));

    assertThat(store().loadVersions(KEY, List.of("1", "2", "3")))
        .containsOnlyKeys("1", "3")
        .containsEntry("1", replaced)
        .containsEntry("3", item("3", "v1"));
    assertThat(store().countItems(KEY)).isEqualTo(2);
  }

  @Test
  void commitWritesTheLogOnlyWhenAsked() {
    assumeTrue(store().capabilities().log(), "store keeps no replay log");
    Lease a = acquire(OWNER_A, T0);

    commit(a, batch(StatePatch.NONE.withLastSequence(2)).events(event(1), event(2)), T0);
    commit(
        a,
        batch(StatePatch.NONE.withLastSequence(3)).events(event(3)).log(true),
        T0.plusSeconds(1));

    assertThat(store().readLog(KEY, LogRange.ALL, NO_LIMIT))
        .containsExactly(new LoggedEvent(3, event(3).event(), T0.plusSeconds(1)));
    assertThat(store().countPending(KEY)).isEqualTo(3);
  }

  /**
   * Two pages of 500, the page size most listings send, each with state, upserts, deletes, outbox
   * and log rows: every row of each table lands, the second page's upserts replace the first's.
   */
  @Test
  void pagesOf500RowsAreCommittedWhole() {
    Lease a = acquire(OWNER_A, T0);
    List<ItemRow> first = IntStream.range(0, 500).mapToObj(i -> page(i, "v1")).toList();
    List<OutboxRow> firstEvents = events(1, 500);
    StatePatch one = new StatePatch(Map.of("live", "\"page-1\""), null, 1, 500L);
    commit(
        a,
        batch(one).items(first).events(firstEvents.toArray(OutboxRow[]::new)).log(true),
        T0.plusMillis(1));
    // Half of the first page changes, 250 items are new, ten of the unchanged ones are deleted.
    List<ItemRow> second = IntStream.range(250, 750).mapToObj(i -> page(i, "v2")).toList();
    List<OutboxRow> secondEvents = events(501, 500);
    StatePatch two =
        StatePatch.NONE.withCursors(Map.of("live", "\"page-2\"")).withLastSequence(1000);
    String[] deleted =
        IntStream.range(0, 10).mapToObj(StoreCommitContract::pageId).toArray(String[]::new);
    commit(
        a,
        batch(two)
            .items(second)
            .deletes(deleted)
            .events(secondEvents.toArray(OutboxRow[]::new))
            .log(true),
        T0.plusMillis(2));

    PollerState state = store().loadState(KEY).orElseThrow();
    assertThat(state.cursors()).containsExactlyEntriesOf(Map.of("live", "\"page-2\""));
    assertThat(state.lastSequence()).isEqualTo(1000);
    assertThat(store().countItems(KEY)).isEqualTo(740);
    assertThat(
            store()
                .loadVersions(
                    KEY,
                    List.of(
                        pageId(0), pageId(9), pageId(10), pageId(249), pageId(250), pageId(749))))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                pageId(10), page(10, "v1"),
                pageId(249), page(249, "v1"),
                pageId(250), page(250, "v2"),
                pageId(749), page(749, "v2")));
    List<OutboxRow> all = Stream.concat(firstEvents.stream(), secondEvents.stream()).toList();
    assertThat(store().loadPending(KEY, 0, NO_LIMIT)).containsExactlyElementsOf(all);
    if (store().capabilities().log()) {
      assertThat(store().readLog(KEY, LogRange.ALL, NO_LIMIT))
          .extracting(LoggedEvent::sequence)
          .containsExactlyElementsOf(all.stream().map(OutboxRow::sequence).toList());
    }
  }

  /**
   * 6 000 rows of each table in one commit, more than one multi-row statement can bind on any store
   * (MariaDB takes 65 535 parameters, 5 957 outbox rows of 11; SQLite 32 766): all of them land,
   * and a duplicate sequence in the last of them fails the commit with nothing written.
   */
  @Test
  void aCommitLargerThanOneStatementIsAllOrNothing() {
    Lease a = acquire(OWNER_A, T0);
    List<ItemRow> items = IntStream.range(0, 6_000).mapToObj(i -> page(i, "v1")).toList();
    List<OutboxRow> events = events(1, 6_000);
    StatePatch patch = new StatePatch(Map.of("live", "\"c1\""), null, 1, 6_000L);
    commit(a, batch(patch).items(items).events(events.toArray(OutboxRow[]::new)).log(true), T0);

    assertThat(store().countItems(KEY)).isEqualTo(6_000);
    assertThat(store().loadPending(KEY, 0, NO_LIMIT)).containsExactlyElementsOf(events);
    assertThat(store().loadVersions(KEY, List.of(pageId(0), pageId(5_999))))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(pageId(0), items.get(0), pageId(5_999), items.get(5_999)));

    List<ItemRow> changed = IntStream.range(0, 6_000).mapToObj(i -> page(i, "v2")).toList();
    List<OutboxRow> next = new java.util.ArrayList<>(events(6_001, 5_999));
    next.add(event(6_000)); // already pending
    StatePatch moved =
        StatePatch.NONE.withCursors(Map.of("live", "\"c2\"")).withLastSequence(12_000);
    assertThatThrownBy(
            () ->
                commit(
                    a,
                    batch(moved)
                        .items(changed)
                        .deletes(pageId(1))
                        .events(next.toArray(OutboxRow[]::new))
                        .log(true),
                    T0.plusSeconds(1)))
        .isInstanceOf(StoreException.class);

    assertThat(store().loadState(KEY)).contains(PollerState.create(patch, T0));
    assertThat(store().countItems(KEY)).isEqualTo(6_000);
    assertThat(store().loadVersions(KEY, List.of(pageId(1), pageId(5_999))))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(pageId(1), items.get(1), pageId(5_999), items.get(5_999)));
    assertThat(store().countPending(KEY)).isEqualTo(6_000);
    if (store().capabilities().log()) {
      assertThat(store().readLog(KEY, LogRange.ALL, NO_LIMIT)).hasSize(6_000);
    }
  }

  private static String pageId(int i) {
    return "p-%05d".formatted(i);
  }

  /** An item of a page: with a payload holding text beyond ASCII, as listings do. */
  private static ItemRow page(int i, String version) {
    String hash = "%064x".formatted(i * 31L + version.hashCode());
    return new ItemRow(
        pageId(i),
        version,
        hash,
        1,
        "{\"id\":" + i + ",\"title\":\"Zo\u00eb \u2603 " + version + "\"}",
        "ok-" + (i % 7),
        T0);
  }

  /** {@code count} pending rows from sequence {@code from} on. */
  private static List<OutboxRow> events(long from, int count) {
    return IntStream.range(0, count).mapToObj(i -> event(from + i)).toList();
  }

  @Test
  void commitWithOnlyAStatePatchCreatesTheStateFromDefaults() {
    Lease a = acquire(OWNER_A, T0);
    StatePatch patch = StatePatch.NONE.withCursors(Map.of("live", "\"tok\""));

    store().commitPoll(KEY, a, CommitBatch.state(patch), T0);

    assertThat(store().loadState(KEY)).contains(PollerState.create(patch, T0));
  }

  // ------------------------------------------------------------------ state

  @Test
  void loadStateIsEmptyBeforeTheFirstWrite() {
    assertThat(store().loadState(KEY)).isEmpty();
    assertThat(store().listKeys(null)).isEmpty();
  }

  @Test
  void saveStateWithTheCurrentLeaseCreatesThenPatchesTheState() {
    Lease a = acquire(OWNER_A, T0);
    StatePatch first = StatePatch.NONE.withCursors(Map.of("live", "\"1\"")).withSchemaVersion(4);

    store().saveState(KEY, a, first, T0);
    store().saveState(KEY, a, StatePatch.NONE.withLastSequence(9), T0.plusSeconds(2));

    assertThat(store().loadState(KEY))
        .contains(
            PollerState.create(first, T0)
                .apply(StatePatch.NONE.withLastSequence(9), T0.plusSeconds(2)));
  }

  @Test
  void unfencedSaveCreatesAndPatchesStateWithoutTouchingTheLease() {
    Lease a = acquire(OWNER_A, T0);
    ScheduleState paused =
        ScheduleState.initial(30_000).withPaused(ScheduleState.PauseReason.MANUAL);

    store().saveStateUnfenced(KEY, StatePatch.schedule(paused), T0.plusSeconds(1));
    store().saveStateUnfenced(KEY, StatePatch.NONE.withCursors(Map.of()), T0.plusSeconds(2));

    PollerState state = store().loadState(KEY).orElseThrow();
    assertThat(state.schedule()).isEqualTo(paused);
    assertThat(state.cursors()).isEmpty();
    assertThat(state.createdAt()).isEqualTo(T0.plusSeconds(1));
    assertThat(state.updatedAt()).isEqualTo(T0.plusSeconds(2));
    assertThat(store().getLease(KEY)).contains(a);
    // The lease still fences: the holder keeps writing, others are still refused.
    store().saveState(KEY, a, StatePatch.NONE.withLastSequence(1), T0.plusSeconds(3));
    assertThat(store().acquireLease(KEY, OWNER_B, TTL, T0.plusSeconds(3))).isEmpty();
  }

  @Test
  void nullPatchFieldsLeaveTheStoredFieldsAlone() {
    StatePatch full =
        new StatePatch(Map.of("live", "\"c\""), ScheduleState.initial(45_000), 3, 12L);
    store().saveStateUnfenced(KEY, full, T0);

    store().saveStateUnfenced(KEY, StatePatch.NONE, T0.plusSeconds(1));

    PollerState state = store().loadState(KEY).orElseThrow();
    assertThat(state.cursors()).containsExactlyEntriesOf(Map.of("live", "\"c\""));
    assertThat(state.schedule()).isEqualTo(ScheduleState.initial(45_000));
    assertThat(state.schemaVersion()).isEqualTo(3);
    assertThat(state.lastSequence()).isEqualTo(12);
    assertThat(state.updatedAt()).isEqualTo(T0.plusSeconds(1));
  }

  @Test
  void scheduleStateRoundTripsWithEveryFieldSet() {
    ScheduleState schedule =
        new ScheduleState(
            ScheduleState.FORMAT_VERSION,
            ScheduleState.Status.CIRCUIT_OPEN,
            ScheduleState.PauseReason.PARTITION_REMOVED,
            T0.plusSeconds(600),
            ScheduleState.DueReason.CATCH_UP,
            123_456,
            7,
            T0.plusMillis(90_500),
            new ScheduleState.Circuit(T0.minusSeconds(60), T0.plusSeconds(540)),
            new ScheduleState.LastPoll(T0.minusMillis(1_500), 3, 250, 12, true, true, 1_234, true),
            new ScheduleState.LastError(
                "HttpStatusException", "HTTP 503 from https://api.example.com/orders?page=2", T0),
            T0.minusSeconds(3_600),
            new ScheduleState.Backfill(
                "2023-01-01T00:00:00Z", "\"tok|en\\x\"", true, "{\"page\":3}"),
            new ScheduleState.Listing(1_000, true, 3),
            T0.minusSeconds(7_200));
    Map<String, String> cursors =
        Map.of(
            "live", "{\"after\":\"2023-12-31T23:59:59.999Z\",\"id\":12345678901234567890}",
            "reconcile", "\"tök€n-𝄞\"",
            "backfill", "42");
    StatePatch patch = new StatePatch(cursors, schedule, 2, Long.MAX_VALUE - 1);

    store().saveStateUnfenced(KEY, patch, T0.plusMillis(1));

    assertThat(store().loadState(KEY)).contains(PollerState.create(patch, T0.plusMillis(1)));
  }

  @Test
  void listKeysIsSortedAndFilteredByPoller() {
    List<PollerKey> written =
        List.of(
            PollerKey.of("orders", "b"),
            PollerKey.of("users"),
            PollerKey.of("orders", "a"),
            PollerKey.of("alpha", "x"),
            PollerKey.of("orders"));
    for (PollerKey k : written) {
      store().saveStateUnfenced(k, StatePatch.NONE, T0);
    }

    assertThat(store().listKeys(null))
        .containsExactly(
            PollerKey.of("alpha", "x"),
            PollerKey.of("orders"),
            PollerKey.of("orders", "a"),
            PollerKey.of("orders", "b"),
            PollerKey.of("users"));
    assertThat(store().listKeys("orders"))
        .containsExactly(
            PollerKey.of("orders"), PollerKey.of("orders", "a"), PollerKey.of("orders", "b"));
    assertThat(store().listKeys("nobody")).isEmpty();
  }

  @Test
  void deleteKeyRemovesEverythingStoredForTheKeyIncludingItsLease() {
    Lease a = acquire(OWNER_A, T0);
    seed(a);
    PollerKey neighbour = PollerKey.of("orders", "eu");
    store().saveStateUnfenced(neighbour, StatePatch.NONE, T0);

    store().deleteKey(KEY);

    assertThat(store().loadState(KEY)).isEmpty();
    assertThat(store().getLease(KEY)).isEmpty();
    assertThat(store().countItems(KEY)).isZero();
    assertThat(store().loadVersions(KEY, List.of("1", "2"))).isEmpty();
    assertThat(store().countPending(KEY)).isZero();
    assertThat(store().countParked(KEY)).isZero();
    assertThat(store().heldKeys(KEY)).isEmpty();
    assertThat(store().getValidator(KEY, URL_HASH)).isEmpty();
    if (store().capabilities().log()) {
      assertThat(store().readLog(KEY, LogRange.ALL, NO_LIMIT)).isEmpty();
    }
    assertThat(store().listKeys(null)).containsExactly(neighbour);
    // The old holder is fenced out, and anyone may take the key at once.
    assertLeaseLost(() -> store().ackEvents(KEY, a, List.of(1L)));
    assertThat(store().acquireLease(KEY, OWNER_B, TTL, T0.plusSeconds(1))).isPresent();
  }

  @Test
  void deleteKeyKeepsTheEpochCounterSoAnEarlierHolderStaysFencedOut() {
    Lease first = acquire(OWNER_A, T0);
    store().deleteKey(KEY);

    Lease again = store().acquireLease(KEY, OWNER_A, TTL, T0).orElseThrow();

    assertThat(again.epoch()).isGreaterThan(first.epoch());
    assertLeaseLost(() -> store().saveState(KEY, first, StatePatch.NONE, T0));
  }

  // ------------------------------------------------------------------ items

  @Test
  void loadVersionsReturnsOnlyKnownIdentities() {
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE).items(item("1", "v1"), item("2", "v2")), T0);

    Map<String, ItemRow> rows = store().loadVersions(KEY, List.of("2", "404", "1", "2"));

    assertThat(rows).containsOnlyKeys("1", "2");
    assertThat(rows.get("2")).isEqualTo(item("2", "v2"));
    assertThat(store().loadVersions(KEY, List.of())).isEmpty();
    assertThat(store().loadVersions(PollerKey.of("unknown"), List.of("1"))).isEmpty();
  }

  @Test
  void clearItemsEmptiesTheSnapshotAndNothingElse() {
    Lease a = acquire(OWNER_A, T0);
    seed(a);
    PollerState state = store().loadState(KEY).orElseThrow();

    store().clearItems(KEY);

    assertThat(store().countItems(KEY)).isZero();
    assertThat(store().loadVersions(KEY, List.of("1", "2"))).isEmpty();
    assertThat(store().loadState(KEY)).contains(state);
    assertThat(store().countPending(KEY)).isEqualTo(2);
    assertThat(store().countParked(KEY)).isEqualTo(2);
    assertThat(store().getLease(KEY)).contains(a);
  }

  @Test
  void streamIdentitiesWalksALargeSnapshotInFullBatches() {
    assumeTrue(store().capabilities().streaming(), "store does not stream identities");
    Lease a = acquire(OWNER_A, T0);
    List<ItemRow> rows =
        IntStream.range(0, 2_500).mapToObj(i -> item("item-%05d".formatted(i), "v1")).toList();
    commit(a, batch(StatePatch.NONE).items(rows), T0);

    List<List<String>> batches;
    try (Stream<List<String>> stream = store().streamIdentities(KEY, 1_000)) {
      batches = stream.toList();
    }

    assertThat(batches).extracting(List::size).containsExactly(1_000, 1_000, 500);
    assertThat(batches.stream().flatMap(List::stream))
        .doesNotHaveDuplicates()
        .containsExactlyInAnyOrderElementsOf(rows.stream().map(ItemRow::identity).toList());
  }

  @Test
  void streamIdentitiesYieldsEveryIdentityOnceInBatchesNoLargerThanAsked() {
    Lease a = acquire(OWNER_A, T0);
    List<String> ids = List.of("a", "b", "c", "d", "e", "f", "g");
    commit(a, batch(StatePatch.NONE).items(ids.stream().map(i -> item(i, "v1")).toList()), T0);

    List<List<String>> batches;
    try (Stream<List<String>> stream = store().streamIdentities(KEY, 3)) {
      batches = stream.toList();
    }
    List<String> empty;
    try (Stream<List<String>> stream = store().streamIdentities(PollerKey.of("unknown"), 3)) {
      empty = stream.flatMap(List::stream).toList();
    }

    assertThat(batches).allSatisfy(b -> assertThat(b).hasSizeBetween(1, 3));
    assertThat(batches.stream().flatMap(List::stream))
        .doesNotHaveDuplicates()
        .containsExactlyInAnyOrderElementsOf(ids);
    assertThat(empty).isEmpty();
  }
}
