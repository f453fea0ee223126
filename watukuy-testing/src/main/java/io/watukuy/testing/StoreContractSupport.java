package io.watukuy.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.spi.CommitBatch;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.jspecify.annotations.Nullable;

/**
 * What the store contract suite stands on: the store of the running test, its set-up and tear-down,
 * and the fixtures and helpers its tests share. The tests themselves are split by topic along one
 * chain of classes ({@link StoreLeaseContract}, {@link StoreCommitContract}) that ends in {@link
 * StoreContractTest}, the class a store extends.
 */
abstract class StoreContractSupport extends StoreUnderTest {

  /** The instant every test starts at. */
  protected static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");

  /** The lease time-to-live the suite acquires with. */
  protected static final Duration TTL = Duration.ofSeconds(30);

  /** The key most tests use. */
  protected static final PollerKey KEY = PollerKey.of("orders");

  static final int NO_LIMIT = 10_000;

  /** Sequences in one ack of {@code ackOfMoreSequencesThanOneStatementMayBindIsAllOrNothing}. */
  static final int ACK_MANY = 70_000;

  static final String OWNER_A = "instance-a";
  static final String OWNER_B = "instance-b";

  /** A URL hash as the engine computes it: 64 hex characters. */
  static final String URL_HASH = "a".repeat(64);

  /**
   * The store of the running test.
   *
   * @return the store {@link #newStore()} returned for this test
   * @throws IllegalStateException if called outside a test
   */
  protected final StateStore store() {
    return current();
  }

  // ================================================================== helpers

  Lease acquire(String owner, Instant now) {
    Optional<Lease> lease = store().acquireLease(KEY, owner, TTL, now);
    assertThat(lease).as("lease of %s for %s at %s", KEY, owner, now).isPresent();
    return lease.orElseThrow();
  }

  void commit(Lease lease, BatchBuilder batch, Instant now) {
    store().commitPoll(KEY, lease, batch.build(), now);
  }

  static void assertLeaseLost(ThrowingCallable call) {
    assertThatThrownBy(call).isInstanceOf(LeaseLostException.class);
  }

  /** Runs a mutation of a returned collection: it may throw or be ignored, but never write. */
  static void tryToMutate(Runnable mutation) {
    try {
      mutation.run();
    } catch (UnsupportedOperationException expected) {
      // Unmodifiable: the preferred outcome.
    }
  }

  /**
   * A key with something in every table: state (cursor, lastSequence 3), items 1 and 2, pending
   * events 1 and 2, event 3 parked holding "ok-3", an invalid item parked, a validator, and the
   * events logged.
   */
  void seed(Lease lease) {
    commit(
        lease,
        batch(new StatePatch(Map.of("live", "\"cursor-1\""), ScheduleState.initial(30_000), 1, 3L))
            .items(item("1", "v1"), item("2", "v1"))
            .events(event(1), event(2), event(3))
            .log(true)
            .parked(invalid("inv-1", T0)),
        T0);
    store().parkEvent(KEY, lease, poison(event(3), 3, T0.plusSeconds(1), "ok-3"));
    store().setValidator(KEY, lease, URL_HASH, new HttpValidator("W/\"seed\"", null, T0));
  }

  /** A commit touching every part of the key, with events from {@code firstSequence}. */
  static CommitBatch fullBatch(long firstSequence) {
    return batch(
            new StatePatch(
                Map.of("live", "\"cursor-new\""),
                ScheduleState.initial(1_000),
                9,
                firstSequence + 1))
        .items(item("1", "v-new"), item("new", "v1"))
        .deletes("2")
        .events(event(firstSequence), event(firstSequence + 1))
        .log(true)
        .parked(invalid("inv-new", T0))
        .build();
  }

  void logFiveEvents() {
    Lease a = acquire(OWNER_A, T0);
    for (int seq = 1; seq <= 5; seq++) {
      commit(
          a,
          batch(StatePatch.NONE.withLastSequence(seq)).events(event(seq)).log(true),
          T0.plusSeconds(10L * (seq - 1)));
    }
    // Logged at T0, T0+10s, T0+20s, T0+30s, T0+40s.
  }

  List<Long> logSequences(LogRange range, int limit) {
    return store().readLog(KEY, range, limit).stream().map(LoggedEvent::sequence).toList();
  }

  /** Everything observable for {@link #KEY} through the read methods. */
  Snapshot snapshot() {
    StateStore s = store();
    List<String> identities;
    try (Stream<List<String>> stream = s.streamIdentities(KEY, 100)) {
      identities = stream.flatMap(List::stream).sorted().toList();
    }
    return new Snapshot(
        s.loadState(KEY),
        s.countItems(KEY),
        identities,
        s.loadVersions(KEY, identities),
        s.countPending(KEY),
        s.loadPending(KEY, 0, NO_LIMIT),
        s.countParked(KEY),
        s.listParked(KEY, null, NO_LIMIT),
        Set.copyOf(s.heldKeys(KEY)),
        s.getValidator(KEY, URL_HASH),
        s.capabilities().log() ? s.readLog(KEY, LogRange.ALL, NO_LIMIT) : List.of());
  }

  record Snapshot(
      Optional<PollerState> state,
      long itemCount,
      List<String> identities,
      Map<String, ItemRow> items,
      long pendingCount,
      List<OutboxRow> pending,
      long parkedCount,
      List<ParkedRow> parked,
      Set<String> heldKeys,
      Optional<HttpValidator> validator,
      List<LoggedEvent> log) {
    Snapshot {
      items = Map.copyOf(items);
      pending = List.copyOf(pending);
      parked = List.copyOf(parked);
      log = List.copyOf(log);
    }
  }

  // ---- fixtures

  static ItemRow item(String identity, @Nullable String version) {
    String hash = Integer.toHexString((identity + "|" + version).hashCode());
    return new ItemRow(
        identity, version, "0".repeat(64 - hash.length()) + hash, 1, null, "ok-" + identity, T0);
  }

  static OutboxRow event(long sequence) {
    return OutboxRow.pending(
        sequence,
        "evt-" + sequence,
        "ok-" + sequence,
        "{\"id\":\"evt-" + sequence + "\",\"type\":\"created\",\"sequence\":" + sequence + "}",
        T0);
  }

  static String errorJson(String message) {
    return "[{\"attempt\":1,\"at\":\"2024-01-01T00:00:01.000Z\",\"name\":\"IllegalStateException\","
        + "\"message\":\""
        + message
        + "\",\"stack\":\"at Handler.handle(Handler.java:1)\"}]";
  }

  static ParkedRow poison(OutboxRow row, int attempts, Instant parkedAt, @Nullable String holdKey) {
    return new ParkedRow(
        Long.toString(row.sequence()),
        ParkedKind.POISON,
        row.sequence(),
        row.eventId(),
        row.orderingKey(),
        row.event(),
        null,
        "{\"name\":\"IllegalStateException\",\"message\":\"handler failed\",\"stack\":\"...\","
            + "\"history\":"
            + errorJson("handler failed")
            + "}",
        attempts,
        parkedAt,
        holdKey);
  }

  static ParkedRow invalid(String id, Instant parkedAt) {
    return new ParkedRow(
        id,
        ParkedKind.INVALID,
        null,
        null,
        "ok-" + id,
        null,
        "{\"id\":\"" + id + "\",\"price\":-1}",
        "{\"messages\":[\"/price: must be >= 0\"]}",
        0,
        parkedAt,
        null);
  }

  static BatchBuilder batch(StatePatch patch) {
    return new BatchBuilder(patch);
  }

  /** Builds a {@link CommitBatch} field by field. */
  static final class BatchBuilder {
    private final StatePatch patch;
    private final List<ItemRow> upserts = new ArrayList<>();
    private final List<String> deletes = new ArrayList<>();
    private final List<OutboxRow> events = new ArrayList<>();
    private final List<ParkedRow> parked = new ArrayList<>();
    private boolean log;

    BatchBuilder(StatePatch patch) {
      this.patch = patch;
    }

    BatchBuilder items(ItemRow... rows) {
      return items(List.of(rows));
    }

    BatchBuilder items(Collection<ItemRow> rows) {
      upserts.addAll(rows);
      return this;
    }

    BatchBuilder deletes(String... identities) {
      deletes.addAll(List.of(identities));
      return this;
    }

    BatchBuilder events(OutboxRow... rows) {
      events.addAll(List.of(rows));
      return this;
    }

    BatchBuilder log(boolean value) {
      log = value;
      return this;
    }

    BatchBuilder parked(ParkedRow... rows) {
      parked.addAll(List.of(rows));
      return this;
    }

    CommitBatch build() {
      return new CommitBatch(patch, upserts, deletes, events, log, parked);
    }
  }
}
