package io.watukuy.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.spi.EffectCursor;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.JournalEntry;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.StateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.jspecify.annotations.Nullable;

/**
 * What {@link EffectStoreContractTest} stands on: the effect tables ({@link EffectStore}) of the
 * running test's store, and the rows its tests write. Every instant is {@link #T0} plus whole
 * milliseconds unless a test checks truncation.
 */
abstract class EffectContractSupport extends StoreUnderTest {

  /** The instant every test starts at. */
  protected static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");

  /** The lease time-to-live the suite acquires with. */
  static final Duration TTL = Duration.ofSeconds(30);

  static final String EFFECT = "NotifyCustomer";
  static final String OTHER_EFFECT = "ChargeCard";
  static final PollerKey SOURCE = PollerKey.of("orders");
  static final PollerKey SOURCE_EU = PollerKey.of("orders", "eu");
  static final String OWNER_A = "instance-a";
  static final String OWNER_B = "instance-b";

  /**
   * The store of the running test, as the state store it is.
   *
   * @return the store {@link #newStore()} returned for this test
   */
  protected final StateStore stateStore() {
    return current();
  }

  /**
   * The effect tables of the running test's store.
   *
   * @return {@link StateStore#effects()} of the store {@link #newStore()} returned for this test
   * @throws AssertionError when that store keeps no effect tables
   */
  protected final EffectStore effects() {
    return stateStore()
        .effects()
        .orElseThrow(() -> new AssertionError(stateStore() + " keeps no effect tables"));
  }

  // ================================================================== rows

  Lease lease(String effect, String owner, Instant now) {
    Optional<Lease> lease = effects().acquireEffectLease(effect, owner, TTL, now);
    assertThat(lease).as("lease of effect %s for %s at %s", effect, owner, now).isPresent();
    return lease.orElseThrow();
  }

  Lease lease() {
    return lease(EFFECT, OWNER_A, T0);
  }

  static EffectCursor cursor(PollerKey source, long watermark, @Nullable Long liveBoundary) {
    return new EffectCursor(
        EFFECT, source, watermark, liveBoundary, Map.of("created", "customer"), T0);
  }

  static InvocationRow row(long position, InvocationStatus status, Instant updatedAt) {
    return row(EFFECT, SOURCE, position, status, updatedAt);
  }

  static InvocationRow row(
      String effect, PollerKey source, long position, InvocationStatus status, Instant updatedAt) {
    boolean failed = status == InvocationStatus.FAILED;
    return new InvocationRow(
        effect,
        source,
        position,
        "customer:c-" + position,
        "created",
        status,
        failed ? 2 : 1,
        failed ? "503 from crm.example" : null,
        failed ? updatedAt.plusSeconds(1) : null,
        false,
        "1.4.0",
        T0,
        updatedAt);
  }

  static InvocationRow withSkip(InvocationRow r, boolean skip) {
    return new InvocationRow(
        r.effect(),
        r.source(),
        r.position(),
        r.lane(),
        r.eventType(),
        r.status(),
        r.attempt(),
        r.error(),
        r.retryAt(),
        skip,
        r.version(),
        r.startedAt(),
        r.updatedAt());
  }

  static InvocationRow withStatus(InvocationRow r, InvocationStatus status, Instant updatedAt) {
    return new InvocationRow(
        r.effect(),
        r.source(),
        r.position(),
        r.lane(),
        r.eventType(),
        status,
        r.attempt() + 1,
        null,
        null,
        false,
        r.version(),
        r.startedAt(),
        updatedAt);
  }

  /** A call key: 64 lower-case hex digits, distinct per {@code n}. */
  static String callKey(int n) {
    return String.format("%064x", n);
  }

  static JournalEntry entry(long position, int n, int ordinal, String result) {
    return entry(EFFECT, SOURCE, position, n, ordinal, result);
  }

  static JournalEntry entry(
      String effect, PollerKey source, long position, int n, int ordinal, String result) {
    return new JournalEntry(
        effect,
        source,
        position,
        callKey(n),
        ordinal,
        "POST https://crm.example/contacts",
        result,
        null,
        T0.plusMillis(ordinal));
  }

  /**
   * Logs events 1 to {@code count} on {@code source} (through {@link StateStore#commitPoll} under
   * the source's poller lease), event {@code n} at {@code T0 + (n - 1) * 10 s}.
   */
  void logEvents(PollerKey source, int count) {
    Lease poller = stateStore().acquireLease(source, OWNER_A, TTL, T0).orElseThrow();
    for (int seq = 1; seq <= count; seq++) {
      stateStore()
          .commitPoll(
              source,
              poller,
              StoreContractSupport.batch(StatePatch.NONE.withLastSequence(seq))
                  .events(StoreContractSupport.event(seq))
                  .log(true)
                  .build(),
              T0.plusSeconds(10L * (seq - 1)));
    }
  }

  /** The sequences of {@code source}'s log, in order. */
  List<Long> logged(PollerKey source) {
    return stateStore().readLog(source, LogRange.ALL, 1000).stream()
        .map(LoggedEvent::sequence)
        .toList();
  }

  void append(JournalEntry entry) {
    assertThat(effects().appendJournalEntry(entry)).as("append of %s", entry.callKey()).isTrue();
  }

  static void assertLeaseLost(String effect, ThrowingCallable call) {
    assertThatThrownBy(call)
        .isInstanceOf(LeaseLostException.class)
        .hasMessageContaining("effect " + effect);
  }

  /** Runs a mutation of a returned collection: it may throw or be ignored, but never write. */
  static void tryToMutate(Runnable mutation) {
    try {
      mutation.run();
    } catch (UnsupportedOperationException expected) {
      // Unmodifiable: the preferred outcome.
    }
  }
}
