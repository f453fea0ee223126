package io.watukuy.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.watukuy.PollerKey;
import io.watukuy.spi.HttpValidator;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.StateStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link StateStore} passes (docs/stores.md, "The StateStore contract";
 * guarantees G4, G5 and G7): leases and epoch fencing, the atomic {@code commitPoll}, the outbox
 * and parked lifecycles, items and snapshot streaming, state patches, HTTP validators and the
 * replay log.
 *
 * <p>Extend it with a class that returns a fresh, empty store from {@link #newStore()}; the suite
 * calls {@link StateStore#migrate()} itself before each test and {@link #destroy(StateStore)} after
 * it:
 *
 * <pre>{@code
 * class MyStoreContractTest extends StoreContractTest {
 *   @Override protected StateStore newStore() { return new MyStore(freshSchema()); }
 * }
 * }</pre>
 *
 * <p>Every {@code now} is a fixed instant derived from {@link #T0}, with millisecond precision, so
 * the suite never reads the clock and a store may keep instants in milliseconds. Tests of an
 * optional capability are skipped, not failed, when {@link StateStore#capabilities()} does not
 * declare it. No test depends on the order a collation gives; two tests check that keys are
 * compared exactly, so that identities, poller names and partitions that differ only in case,
 * accents, compatibility forms or trailing spaces are distinct (a collation that folds them, as
 * MariaDB's defaults and its PAD SPACE binary collation do, would merge two items into one row).
 *
 * @since 0.1
 */
public abstract class StoreContractTest extends StoreCommitContract {
  // ------------------------------------------------------------------ outbox

  @Test
  void loadPendingReturnsRowsInSequenceOrderWhateverTheirNextAttempt() {
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE.withLastSequence(2)).events(event(1), event(2)), T0);
    commit(
        a,
        batch(StatePatch.NONE.withLastSequence(4)).events(event(3), event(4)),
        T0.plusSeconds(1));
    // Row 1 waits far in the future, row 3 a little: both stay in place.
    store().recordAttempt(KEY, a, 1, errorJson("boom"), T0.plus(Duration.ofDays(1)));
    store().recordAttempt(KEY, a, 3, errorJson("boom"), T0.plusSeconds(5));

    assertThat(store().loadPending(KEY, 0, NO_LIMIT))
        .extracting(OutboxRow::sequence)
        .containsExactly(1L, 2L, 3L, 4L);
  }

  @Test
  void loadPendingPagesByAfterSequenceAndLimit() {
    Lease a = acquire(OWNER_A, T0);
    commit(
        a,
        batch(StatePatch.NONE.withLastSequence(5))
            .events(event(1), event(2), event(3), event(4), event(5)),
        T0);

    assertThat(store().loadPending(KEY, 0, 2)).containsExactly(event(1), event(2));
    assertThat(store().loadPending(KEY, 2, 2)).containsExactly(event(3), event(4));
    assertThat(store().loadPending(KEY, 4, 2)).containsExactly(event(5));
    assertThat(store().loadPending(KEY, 5, 2)).isEmpty();
    assertThat(store().loadPending(KEY, 0, 0)).isEmpty();
    assertThat(store().loadPending(PollerKey.of("unknown"), 0, 10)).isEmpty();
  }

  @Test
  void rowsSharingAnEventIdAreAckedOneAtATimeBySequence() {
    // An item returning to an earlier state (A -> B -> A) repeats an id (docs/architecture.md,
    // "Ids, the outbox key").
    Lease a = acquire(OWNER_A, T0);
    OutboxRow first = OutboxRow.pending(1, "same-id", "ok-1", "{\"seq\":1}", T0);
    OutboxRow second = OutboxRow.pending(2, "same-id", "ok-1", "{\"seq\":2}", T0);
    commit(a, batch(StatePatch.NONE.withLastSequence(2)).events(first, second), T0);

    store().ackEvents(KEY, a, List.of(1L));

    assertThat(store().loadPending(KEY, 0, NO_LIMIT)).containsExactly(second);
    assertThat(store().countPending(KEY)).isEqualTo(1);
  }

  @Test
  void ackOfUnknownOrAlreadyAckedSequencesIsANoOp() {
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE.withLastSequence(3)).events(event(1), event(2), event(3)), T0);

    store().ackEvents(KEY, a, List.of(2L));
    store().ackEvents(KEY, a, List.of(2L, 99L));
    store().ackEvents(KEY, a, List.of());

    assertThat(store().loadPending(KEY, 0, NO_LIMIT)).containsExactly(event(1), event(3));
  }

  @Test
  void countPendingCountsOnlyRowsNotYetAcked() {
    Lease a = acquire(OWNER_A, T0);
    assertThat(store().countPending(KEY)).isZero();
    commit(a, batch(StatePatch.NONE.withLastSequence(3)).events(event(1), event(2), event(3)), T0);

    store().ackEvents(KEY, a, List.of(1L, 3L));

    assertThat(store().countPending(KEY)).isEqualTo(1);
  }

  /**
   * More sequences than one statement of any built-in database may bind (SQLite 32 766 parameters,
   * PostgreSQL and MariaDB 65 535), so a store that splits the list proves that the parts are one
   * fenced write: with a stolen lease none of them goes, with the current one all of them go.
   */
  @Test
  void ackOfMoreSequencesThanOneStatementMayBindIsAllOrNothing() {
    int count = ACK_MANY;
    Lease a = acquire(OWNER_A, T0);
    List<OutboxRow> events = new ArrayList<>(count);
    for (int seq = 1; seq <= count; seq++) {
      events.add(OutboxRow.pending(seq, "id-" + seq, "ok-" + (seq % 7), "{\"s\":" + seq + "}", T0));
    }
    commit(
        a,
        batch(StatePatch.NONE.withLastSequence(count)).events(events.toArray(OutboxRow[]::new)),
        T0);
    List<Long> all = new ArrayList<>(count + 2);
    all.add(0L); // never committed
    for (long seq = count; seq >= 1; seq--) {
      all.add(seq); // not in sequence order
    }
    all.add(5L); // twice

    Lease b = acquire(OWNER_B, a.expiresAt());
    assertLeaseLost(() -> store().ackEvents(KEY, a, all));
    assertThat(store().countPending(KEY)).isEqualTo(count);

    store().ackEvents(KEY, b, all);
    assertThat(store().countPending(KEY)).isZero();
    assertThat(store().loadPending(KEY, 0, 10)).isEmpty();
  }

  @Test
  void recordAttemptIncrementsAttemptsAndStoresTheErrorAndNextAttempt() {
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE.withLastSequence(2)).events(event(1), event(2)), T0);
    String firstError = errorJson("first");
    String bothErrors =
        "[" + firstError.substring(1, firstError.length() - 1) + ",{\"attempt\":2}]";

    store().recordAttempt(KEY, a, 1, firstError, T0.plusSeconds(1));
    OutboxRow afterOne = store().loadPending(KEY, 0, 1).get(0);
    store().recordAttempt(KEY, a, 1, bothErrors, null);
    OutboxRow afterTwo = store().loadPending(KEY, 0, 1).get(0);

    assertThat(afterOne)
        .isEqualTo(
            new OutboxRow(
                1, "evt-1", "ok-1", event(1).event(), 1, T0.plusSeconds(1), firstError, T0));
    assertThat(afterTwo)
        .isEqualTo(new OutboxRow(1, "evt-1", "ok-1", event(1).event(), 2, null, bothErrors, T0));
    assertThat(store().loadPending(KEY, 1, 1)).containsExactly(event(2));
  }

  @Test
  void parkEventMovesTheRowFromTheOutboxToTheParkedRows() {
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE.withLastSequence(2)).events(event(1), event(2)), T0);
    ParkedRow parked = poison(event(1), 3, T0.plusSeconds(30), "ok-1");

    store().parkEvent(KEY, a, parked);

    assertThat(store().countPending(KEY)).isEqualTo(1);
    assertThat(store().loadPending(KEY, 0, NO_LIMIT)).containsExactly(event(2));
    assertThat(store().countParked(KEY)).isEqualTo(1);
    assertThat(store().listParked(KEY, null, NO_LIMIT))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p).isEqualTo(parked);
              assertThat(p.id()).isEqualTo("1");
              assertThat(p.sequence()).isEqualTo(1L);
              assertThat(p.eventId()).isEqualTo("evt-1");
              assertThat(p.error()).isEqualTo(parked.error());
              assertThat(p.attempts()).isEqualTo(3);
              assertThat(p.holdKey()).isEqualTo("ok-1");
            });
  }

  @Test
  void heldKeysAreTheHoldKeysOfParkedRows() {
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE.withLastSequence(3)).events(event(1), event(2), event(3)), T0);
    assertThat(store().heldKeys(KEY)).isEmpty();

    store().parkEvent(KEY, a, poison(event(1), 3, T0.plusSeconds(1), "ok-1"));
    store().parkEvent(KEY, a, poison(event(2), 3, T0.plusSeconds(2), null));
    store().parkEvent(KEY, a, poison(event(3), 3, T0.plusSeconds(3), "ok-3"));

    assertThat(store().heldKeys(KEY)).containsExactlyInAnyOrder("ok-1", "ok-3");
  }

  @Test
  void retryPutsAPoisonEventBackAtItsOriginalSequenceAndReleasesItsKey() {
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE.withLastSequence(3)).events(event(1), event(2), event(3)), T0);
    store().recordAttempt(KEY, a, 2, errorJson("boom"), T0.plusSeconds(9));
    store().parkEvent(KEY, a, poison(event(2), 3, T0.plusSeconds(10), "ok-2"));
    store().ackEvents(KEY, a, List.of(1L));

    int retried = store().retryParked(KEY, List.of("2"));

    assertThat(retried).isEqualTo(1);
    assertThat(store().countParked(KEY)).isZero();
    assertThat(store().heldKeys(KEY)).isEmpty();
    List<OutboxRow> pending = store().loadPending(KEY, 0, NO_LIMIT);
    assertThat(pending).extracting(OutboxRow::sequence).containsExactly(2L, 3L);
    assertThat(pending.get(0))
        .satisfies(
            row -> {
              assertThat(row.eventId()).isEqualTo("evt-2");
              assertThat(row.orderingKey()).isEqualTo("ok-2");
              assertThat(row.event()).isEqualTo(event(2).event());
              assertThat(row.attempts()).isZero();
              assertThat(row.nextAttemptAt()).isNull();
              assertThat(row.lastError()).isNull();
            });
    assertThat(store().getLease(KEY)).contains(a);
  }

  @Test
  void retryRemovesParkedInvalidItemsWithoutQueueingAnything() {
    Lease a = acquire(OWNER_A, T0);
    commit(
        a,
        batch(StatePatch.NONE).parked(invalid("inv-1", T0), invalid("inv-2", T0.plusSeconds(1))),
        T0);

    int retried = store().retryParked(KEY, List.of("inv-1"));

    assertThat(retried).isEqualTo(1);
    assertThat(store().listParked(KEY, null, NO_LIMIT))
        .containsExactly(invalid("inv-2", T0.plusSeconds(1)));
    assertThat(store().countPending(KEY)).isZero();
  }

  @Test
  void discardDropsParkedRowsForGood() {
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE.withLastSequence(2)).events(event(1), event(2)), T0);
    store().parkEvent(KEY, a, poison(event(1), 3, T0.plusSeconds(1), "ok-1"));
    commit(
        a, batch(StatePatch.NONE).parked(invalid("inv-1", T0.plusSeconds(2))), T0.plusSeconds(2));

    int discarded = store().discardParked(KEY, List.of("1", "inv-1"));

    assertThat(discarded).isEqualTo(2);
    assertThat(store().countParked(KEY)).isZero();
    assertThat(store().heldKeys(KEY)).isEmpty();
    assertThat(store().loadPending(KEY, 0, NO_LIMIT)).containsExactly(event(2));
    assertThat(store().getLease(KEY)).contains(a);
  }

  @Test
  void retryAndDiscardOfUnknownIdsReturnZero() {
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE).parked(invalid("inv-1", T0)), T0);

    assertThat(store().retryParked(KEY, List.of("404"))).isZero();
    assertThat(store().discardParked(KEY, List.of("404"))).isZero();
    assertThat(store().retryParked(KEY, List.of())).isZero();
    assertThat(store().discardParked(PollerKey.of("unknown"), List.of("inv-1"))).isZero();
    assertThat(store().countParked(KEY)).isEqualTo(1);
  }

  @Test
  void listParkedIsOldestFirstFilteredByKindAndLimited() {
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE.withLastSequence(2)).events(event(1), event(2)), T0);
    ParkedRow invalidLate = invalid("inv-late", T0.plusSeconds(40));
    ParkedRow invalidEarly = invalid("inv-early", T0.plusSeconds(10));
    commit(a, batch(StatePatch.NONE).parked(invalidLate, invalidEarly), T0.plusSeconds(40));
    ParkedRow poison2 = poison(event(2), 3, T0.plusSeconds(20), null);
    ParkedRow poison1 = poison(event(1), 3, T0.plusSeconds(30), null);
    store().parkEvent(KEY, a, poison2);
    store().parkEvent(KEY, a, poison1);

    assertThat(store().listParked(KEY, null, NO_LIMIT))
        .containsExactly(invalidEarly, poison2, poison1, invalidLate);
    assertThat(store().listParked(KEY, null, 2)).containsExactly(invalidEarly, poison2);
    assertThat(store().listParked(KEY, ParkedKind.POISON, NO_LIMIT))
        .containsExactly(poison2, poison1);
    assertThat(store().listParked(KEY, ParkedKind.INVALID, 1)).containsExactly(invalidEarly);
    assertThat(store().countParked(KEY)).isEqualTo(4);
  }

  // ------------------------------------------------------------------ HTTP validators

  @Test
  void getValidatorIsEmptyWhenNoneIsStored() {
    assertThat(store().getValidator(KEY, URL_HASH)).isEmpty();
  }

  @Test
  void validatorRoundTripsAWeakEtagByteForByte() {
    Lease a = acquire(OWNER_A, T0);
    HttpValidator validator =
        new HttpValidator("W/\"abc\"", "Mon, 01 Jan 2024 00:00:00 GMT", T0.plusMillis(5));

    store().setValidator(KEY, a, URL_HASH, validator);

    assertThat(store().getValidator(KEY, URL_HASH)).contains(validator);
    assertThat(store().getValidator(KEY, URL_HASH).orElseThrow().etag()).isEqualTo("W/\"abc\"");
  }

  @Test
  void setValidatorReplacesTheValidatorOfThatUrlOnly() {
    Lease a = acquire(OWNER_A, T0);
    String otherHash = "c".repeat(64);
    store().setValidator(KEY, a, URL_HASH, new HttpValidator("\"v1\"", null, T0));
    store()
        .setValidator(
            KEY, a, otherHash, new HttpValidator(null, "Sun, 31 Dec 2023 00:00:00 GMT", T0));

    HttpValidator replacement = new HttpValidator("\"v2\"", null, T0.plusSeconds(60));
    store().setValidator(KEY, a, URL_HASH, replacement);

    assertThat(store().getValidator(KEY, URL_HASH)).contains(replacement);
    assertThat(store().getValidator(KEY, otherHash))
        .contains(new HttpValidator(null, "Sun, 31 Dec 2023 00:00:00 GMT", T0));
  }

  // ------------------------------------------------------------------ replay log

  @Test
  void readLogFiltersByAfterSequenceFromTimeInclusiveAndToTimeExclusive() {
    assumeTrue(store().capabilities().log(), "store keeps no replay log");
    logFiveEvents();

    assertThat(logSequences(LogRange.ALL, NO_LIMIT)).containsExactly(1L, 2L, 3L, 4L, 5L);
    assertThat(logSequences(LogRange.after(2), NO_LIMIT)).containsExactly(3L, 4L, 5L);
    assertThat(logSequences(new LogRange(null, T0.plusSeconds(10), null), NO_LIMIT))
        .containsExactly(2L, 3L, 4L, 5L);
    assertThat(logSequences(new LogRange(null, null, T0.plusSeconds(20)), NO_LIMIT))
        .containsExactly(1L, 2L);
    assertThat(logSequences(new LogRange(1L, T0.plusSeconds(10), T0.plusSeconds(30)), NO_LIMIT))
        .containsExactly(2L, 3L);
    assertThat(logSequences(new LogRange(5L, null, null), NO_LIMIT)).isEmpty();
  }

  @Test
  void readLogReturnsAtMostLimitEventsInSequenceOrder() {
    assumeTrue(store().capabilities().log(), "store keeps no replay log");
    logFiveEvents();

    assertThat(store().readLog(KEY, LogRange.ALL, 2))
        .containsExactly(
            new LoggedEvent(1, event(1).event(), T0),
            new LoggedEvent(2, event(2).event(), T0.plusSeconds(10)));
    assertThat(logSequences(new LogRange(2L, T0.plusSeconds(20), null), 2)).containsExactly(3L, 4L);
  }

  @Test
  void pruneLogRemovesEventsCreatedStrictlyBeforeTheCutoff() {
    assumeTrue(store().capabilities().log(), "store keeps no replay log");
    logFiveEvents();

    int pruned = store().pruneLog(KEY, T0.plusSeconds(20));

    assertThat(pruned).isEqualTo(2);
    assertThat(logSequences(LogRange.ALL, NO_LIMIT)).containsExactly(3L, 4L, 5L);
    assertThat(store().pruneLog(KEY, T0.plusSeconds(20))).isZero();
    assertThat(store().pruneLog(PollerKey.of("unknown"), T0.plusSeconds(20))).isZero();
  }

  @Test
  void ackingAnEventLeavesItInTheLog() {
    assumeTrue(store().capabilities().log(), "store keeps no replay log");
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE.withLastSequence(1)).events(event(1)).log(true), T0);

    store().ackEvents(KEY, a, List.of(1L));

    assertThat(logSequences(LogRange.ALL, NO_LIMIT)).containsExactly(1L);
  }

  // ------------------------------------------------------------------ keys compared exactly

  /**
   * Identities a collation that folds case, accents, compatibility forms or trailing spaces (a
   * database's default, or a PAD SPACE binary one) would merge into one row: each pair differs.
   */
  private static final List<String> LOOK_ALIKE_IDENTITIES =
      List.of(
          "abc",
          "ABC",
          "Abc",
          "e",
          "E",
          "\u00e9", // é, precomposed
          "e\u0301", // e and a combining acute accent
          "\u00c9",
          "a",
          "a ",
          "a  ",
          " a",
          "ss",
          "\u00df", // ß
          "fi",
          "\ufb01", // the ligature fi
          "\ud83d\ude00", // two emoji outside the BMP, which some collations weigh alike
          "\ud83d\ude01");

  @Test
  void identitiesThatDifferOnlyInCaseAccentsOrTrailingSpacesAreDistinctItems() {
    Lease a = acquire(OWNER_A, T0);
    List<ItemRow> rows =
        IntStream.range(0, LOOK_ALIKE_IDENTITIES.size())
            .mapToObj(i -> item(LOOK_ALIKE_IDENTITIES.get(i), "v" + i))
            .toList();
    commit(a, batch(StatePatch.NONE).items(rows), T0);

    assertThat(store().countItems(KEY)).isEqualTo(LOOK_ALIKE_IDENTITIES.size());
    Map<String, ItemRow> found = store().loadVersions(KEY, LOOK_ALIKE_IDENTITIES);
    assertThat(found).containsOnlyKeys(LOOK_ALIKE_IDENTITIES);
    for (ItemRow row : rows) {
      assertThat(found.get(row.identity())).as("item '%s'", row.identity()).isEqualTo(row);
    }
    assertThat(store().loadVersions(KEY, List.of("ABC ", "\u00e9 ", "A"))).isEmpty();
    List<String> streamed;
    try (Stream<List<String>> stream = store().streamIdentities(KEY, 4)) {
      streamed = stream.flatMap(List::stream).toList();
    }
    assertThat(streamed).containsExactlyInAnyOrderElementsOf(LOOK_ALIKE_IDENTITIES);

    // Deleting one of a pair leaves the other.
    commit(a, batch(StatePatch.NONE).deletes("a ", "ABC", "\u00e9", "\ud83d\ude00"), T0);

    assertThat(store().loadVersions(KEY, LOOK_ALIKE_IDENTITIES).keySet())
        .containsExactlyInAnyOrderElementsOf(
            LOOK_ALIKE_IDENTITIES.stream()
                .filter(id -> !List.of("a ", "ABC", "\u00e9", "\ud83d\ude00").contains(id))
                .toList());
  }

  @Test
  void pollerNamesAndPartitionsThatDifferOnlyInCaseAccentsOrTrailingSpacesAreDistinctKeys() {
    List<PollerKey> keys =
        List.of(
            PollerKey.of("orders", "eu"),
            PollerKey.of("Orders", "eu"),
            PollerKey.of("ORDERS", "eu"),
            PollerKey.of("orders", "EU"),
            PollerKey.of("orders", "eu "),
            PollerKey.of("orders", "\u00e9u"),
            PollerKey.of("orders", "e\u0301u"),
            PollerKey.of("orders", "\u00c9U"));
    List<Lease> leases = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      PollerKey k = keys.get(i);
      Optional<Lease> lease = store().acquireLease(k, "owner-" + i, TTL, T0);
      assertThat(lease).as("lease of %s", k).map(Lease::epoch).contains(1L);
      leases.add(lease.orElseThrow());
    }
    for (int i = 0; i < keys.size(); i++) {
      store()
          .commitPoll(
              keys.get(i),
              leases.get(i),
              batch(StatePatch.NONE.withLastSequence(i + 1))
                  .items(item("item-" + i, "v1"))
                  .events(event(i + 1))
                  .build(),
              T0);
    }

    assertThat(store().listKeys(null)).containsExactlyInAnyOrderElementsOf(keys);
    for (int i = 0; i < keys.size(); i++) {
      PollerKey k = keys.get(i);
      assertThat(store().getLease(k)).as("lease of %s", k).contains(leases.get(i));
      assertThat(store().loadState(k).map(PollerState::lastSequence))
          .as("state of %s", k)
          .contains((long) i + 1);
      assertThat(store().loadVersions(k, List.of("item-0", "item-" + i)).keySet())
          .as("items of %s", k)
          .containsExactly("item-" + i);
      assertThat(store().loadPending(k, 0, NO_LIMIT))
          .as("outbox of %s", k)
          .extracting(OutboxRow::sequence)
          .containsExactly((long) i + 1);
    }
    // Another key's lease fences nothing here; deleting one key leaves its look-alikes.
    assertLeaseLost(
        () -> store().saveState(keys.get(1), leases.get(0), StatePatch.NONE, T0.plusSeconds(1)));
    store().deleteKey(keys.get(4));
    assertThat(store().listKeys("orders")).doesNotContain(keys.get(4)).contains(keys.get(0));
    assertThat(store().countItems(keys.get(0))).isEqualTo(1);
    assertThat(store().listKeys("Orders")).containsExactly(keys.get(1));
  }

  // ------------------------------------------------------------------ isolation and copies

  @Test
  void keysAreIsolatedFromEachOther() {
    PollerKey keyA = PollerKey.of("orders", "a");
    PollerKey keyB = PollerKey.of("orders", "b");
    PollerKey otherPoller = PollerKey.of("orders-archive", "a");
    Lease a = store().acquireLease(keyA, OWNER_A, TTL, T0).orElseThrow();
    store()
        .commitPoll(
            keyA,
            a,
            batch(StatePatch.NONE.withLastSequence(2))
                .items(item("1", "v1"))
                .events(event(1), event(2))
                .log(true)
                .parked(invalid("inv-1", T0))
                .build(),
            T0);
    store().parkEvent(keyA, a, poison(event(2), 3, T0.plusSeconds(1), "ok-2"));
    store().setValidator(keyA, a, URL_HASH, new HttpValidator("\"e\"", null, T0));

    for (PollerKey k : List.of(keyB, otherPoller)) {
      assertThat(store().loadState(k)).isEmpty();
      assertThat(store().getLease(k)).isEmpty();
      assertThat(store().countItems(k)).isZero();
      assertThat(store().loadVersions(k, List.of("1"))).isEmpty();
      assertThat(store().countPending(k)).isZero();
      assertThat(store().loadPending(k, 0, NO_LIMIT)).isEmpty();
      assertThat(store().countParked(k)).isZero();
      assertThat(store().heldKeys(k)).isEmpty();
      assertThat(store().getValidator(k, URL_HASH)).isEmpty();
      if (store().capabilities().log()) {
        assertThat(store().readLog(k, LogRange.ALL, NO_LIMIT)).isEmpty();
      }
      // A fresh key starts its own epochs, and the lease of keyA does not fence it.
      assertThat(store().acquireLease(k, OWNER_B, TTL, T0)).map(Lease::epoch).contains(1L);
    }
    // Administrative writes on keyB leave keyA alone.
    store().clearItems(keyB);
    store().deleteKey(keyB);
    assertThat(store().discardParked(keyB, List.of("inv-1", "2"))).isZero();
    assertThat(store().countItems(keyA)).isEqualTo(1);
    assertThat(store().countPending(keyA)).isEqualTo(1);
    assertThat(store().countParked(keyA)).isEqualTo(2);
    assertThat(store().getLease(keyA)).contains(a);
  }

  @Test
  void mutatingReturnedCollectionsCannotChangeTheStore() {
    Lease a = acquire(OWNER_A, T0);
    seed(a);
    Snapshot before = snapshot();

    tryToMutate(() -> store().loadPending(KEY, 0, NO_LIMIT).clear());
    tryToMutate(() -> store().loadPending(KEY, 0, NO_LIMIT).add(event(99)));
    tryToMutate(() -> store().loadVersions(KEY, List.of("1", "2")).clear());
    tryToMutate(() -> store().loadVersions(KEY, List.of("1")).put("3", item("3", "v3")));
    tryToMutate(() -> store().listParked(KEY, null, NO_LIMIT).clear());
    tryToMutate(() -> store().heldKeys(KEY).clear());
    tryToMutate(() -> store().heldKeys(KEY).add("ok-99"));
    tryToMutate(() -> store().listKeys(null).clear());
    tryToMutate(() -> store().loadState(KEY).orElseThrow().cursors().clear());
    tryToMutate(
        () -> {
          try (Stream<List<String>> stream = store().streamIdentities(KEY, 10)) {
            stream.forEach(List::clear);
          }
        });
    if (store().capabilities().log()) {
      tryToMutate(() -> store().readLog(KEY, LogRange.ALL, NO_LIMIT).clear());
    }

    assertThat(snapshot()).isEqualTo(before);
    assertThat(store().listKeys(null)).containsExactly(KEY);
    assertThat(store().heldKeys(KEY)).containsExactly("ok-3");
  }
}
