package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cancellable;
import io.watukuy.ChangeEvent;
import io.watukuy.KeyReport;
import io.watukuy.LeaseLostException;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.TickReport;
import io.watukuy.TimeSource;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.Lease;
import io.watukuy.spi.OutboxRow;
import io.watukuy.testing.ForwardingStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * G3, G5: a process frozen past its lease TTL between loading events and handing them to its
 * handler (SIGSTOP, a suspended VM, a long GC) hands none of them over when it wakes up, because by
 * its monotonic clock less than the hand-off margin (a third of the TTL) is left. Meanwhile another
 * instance took the key and delivered newer events of the same items; a stale event after them
 * would leave a consumer with an old state (issue 16, finding 1).
 */
class FrozenLeaseHolderTest {
  static final Duration TTL = Watukuy.DEFAULT_LEASE_TTL;
  static final PollerKey KEY = PollerKey.of("catalog");

  final Fixture f = new Fixture();
  final Poller<JsonNode> catalog = f.snapshot("catalog", 10).build();

  /** Every handler call: instance, identity, type, sequence. */
  final List<String> delivered = new ArrayList<>();

  final Map<String, Long> lastSequence = new HashMap<>();
  final List<String> stale = new ArrayList<>();
  final List<LeaseLostException> lost = new ArrayList<>();

  /** A's time: the shared virtual clock, but its timers do not run while it is frozen. */
  final FreezableTime aTime = new FreezableTime();

  /** What the frozen store call does before it returns to A; null when nothing is armed. */
  @Nullable Runnable freeze;

  @Test
  void aProcessFrozenPastItsTtlAfterLoadingTheOutboxHandsNothingStaleToItsHandler() {
    Watukuy a = engineA();
    f.seed(3);
    a.tick(); // no handler yet: three created events wait in the outbox
    a.on(catalog, handler("a"));
    freeze =
        () -> {
          // A loaded the outbox; it freezes for longer than the TTL, its renewal timer with it.
          f.clock.advance(TTL.plusSeconds(1));
          for (int i = 1; i <= 3; i++) f.api.put(String.format("o%03d", i), Map.of("n", 10 + i));
          f.nextCycle();
          TickReport b = engine("b").tick();
          assertThat(b.delivered()).as("b took the key and delivered on").isEqualTo(6);
        };

    f.nextCycle();
    TickReport resumed = a.tick();

    assertThat(stale).as("events older than one already delivered for their item").isEmpty();
    assertThat(delivered)
        .containsExactly(
            "b o001 created 1",
            "b o002 created 2",
            "b o003 created 3",
            "b o001 updated 4",
            "b o002 updated 5",
            "b o003 updated 6");
    KeyReport report = resumed.key(KEY).orElseThrow();
    assertThat(report.delivered()).isZero();
    assertThat(report.error())
        .isInstanceOf(LeaseLostException.class)
        .hasMessageContaining(
            "left by this process's clock, less than the hand-off margin of 10 s");
    assertThat(lost).hasSize(1);
    assertThat(f.store.countPending(KEY)).isZero();
    assertThat(f.store.countParked(KEY)).isZero();
  }

  @Test
  void aProcessFrozenPastItsTtlAfterACommitHandsNothingOfThePageToItsHandler() {
    Watukuy a = engineA().on(catalog, handler("a"));
    f.seed(3);
    freeze =
        () -> {
          // A committed a page; it freezes before the page's events reach its handler.
          f.clock.advance(TTL.plusSeconds(1));
          f.api.put("o002", Map.of("n", 20));
          f.api.delete("o003");
          f.nextCycle();
          TickReport b = engine("b").tick();
          assertThat(b.delivered()).as("b took the key and delivered on").isEqualTo(5);
        };

    TickReport resumed = a.tick();

    assertThat(stale).isEmpty();
    assertThat(delivered)
        .containsExactly(
            "b o001 created 1",
            "b o002 created 2",
            "b o003 created 3",
            "b o002 updated 4",
            "b o003 deleted 5");
    KeyReport report = resumed.key(KEY).orElseThrow();
    assertThat(report.delivered()).isZero();
    // The renewal after the commit already found the lease taken.
    assertThat(report.error())
        .isInstanceOf(LeaseLostException.class)
        .hasMessageContaining("which a renewal found taken by another instance or released");
    assertThat(lost).hasSize(1);
    assertThat(f.store.countPending(KEY)).isZero();
  }

  @Test
  void aHandOffNeedsAThirdOfTheTtlLeftByTheMonotonicClock() {
    Watukuy a = engineA();
    f.seed(2);
    a.tick();
    a.on(catalog, handler("a"));
    // A pause of two thirds of the TTL leaves exactly the margin: the hand-off goes ahead.
    freeze = () -> f.clock.advance(TTL.minus(TTL.dividedBy(3)));
    f.nextCycle();
    assertThat(a.tick().delivered()).isEqualTo(2);

    aTime.thaw();
    f.api.put("o003", Map.of("n", 3));
    f.api.put("o004", Map.of("n", 4));
    f.nextCycle();
    engine("q").tick(); // another instance without a handler commits o003 and o004
    // One millisecond more and the lease has less than the margin left: nothing is handed over.
    freeze = () -> f.clock.advance(TTL.minus(TTL.dividedBy(3)).plusMillis(1));
    f.nextCycle();
    TickReport refused = a.tick();
    assertThat(refused.delivered()).isZero();
    assertThat(refused.key(KEY).orElseThrow().error()).isInstanceOf(LeaseLostException.class);
    assertThat(f.store.countPending(KEY)).isEqualTo(2);

    // Nobody took the key meanwhile: the next cycle delivers the two events that stayed pending.
    freeze = null;
    aTime.thaw();
    f.nextCycle();
    assertThat(a.tick().delivered()).isEqualTo(2);
    assertThat(delivered)
        .containsExactly(
            "a o001 created 1", "a o002 created 2", "a o003 created 3", "a o004 created 4");
  }

  @Test
  void aHandlerFrozenBetweenItsStartAndItsWriteIsStoppedByCheckLease() {
    Watukuy a =
        engineA()
            .on(
                catalog,
                (ChangeEvent<JsonNode> e) -> {
                  // Frozen after the engine's check, inside the handler, before its write.
                  aTime.freeze();
                  f.clock.advance(TTL);
                  io.watukuy.Handler.checkLease();
                  delivered.add("a " + e.identity());
                });
    f.seed(1);

    TickReport report = a.tick();

    assertThat(delivered).isEmpty();
    assertThat(report.key(KEY).orElseThrow().error()).isInstanceOf(LeaseLostException.class);
    assertThat(lost).hasSize(1);
    List<OutboxRow> pending = f.store.loadPending(KEY, 0, 10);
    assertThat(pending).hasSize(1);
    assertThat(pending.get(0).attempts()).as("no attempt counted").isZero();
    assertThat(f.store.countParked(KEY)).isZero();
  }

  private Watukuy engineA() {
    ForwardingStore frozenAt =
        new ForwardingStore(f.store) {
          @Override
          public List<OutboxRow> loadPending(PollerKey key, long afterSequence, int limit) {
            List<OutboxRow> rows = super.loadPending(key, afterSequence, limit);
            if (!rows.isEmpty()) pause();
            return rows;
          }

          @Override
          public void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now) {
            super.commitPoll(key, lease, batch, now);
            if (!batch.events().isEmpty()) pause();
          }
        };
    return f.engine("a")
        .store(frozenAt)
        .time(aTime)
        .poller(catalog)
        .listener(
            new WatukuyListener() {
              @Override
              public void onLeaseLost(PollerKey key, LeaseLostException error) {
                lost.add(error);
              }
            })
        .build();
  }

  /** Runs the armed freeze once, with A's timers held: a frozen process runs none. */
  private void pause() {
    Runnable armed = freeze;
    if (armed == null) return;
    freeze = null;
    aTime.freeze();
    armed.run();
  }

  private Watukuy engine(String id) {
    Watukuy w = f.engine(id).poller(catalog).build();
    if (!id.equals("q")) w.on(catalog, handler(id));
    return w;
  }

  private io.watukuy.Handler<JsonNode> handler(String instance) {
    return (ChangeEvent<JsonNode> e) -> {
      Long last = lastSequence.put(e.identity(), e.sequence());
      if (last != null && last > e.sequence())
        stale.add(instance + " " + e.identity() + " #" + e.sequence() + " after #" + last);
      delivered.add(instance + " " + e.identity() + " " + e.type().wire() + " " + e.sequence());
    };
  }

  /**
   * The fixture's virtual clock for one engine, whose timers are held while it is frozen: the lease
   * renewal of a frozen process does not run either. Held timers stay held (a resumed process's
   * timer thread may well come after its hand-off); {@link #thaw} lets new ones run again.
   */
  final class FreezableTime implements TimeSource {
    private boolean frozen;

    void freeze() {
      frozen = true;
    }

    void thaw() {
      frozen = false;
    }

    @Override
    public Instant now() {
      return f.clock.now();
    }

    @Override
    public long nanoTime() {
      return f.clock.nanoTime();
    }

    @Override
    public void sleep(Duration duration) throws InterruptedException {
      f.clock.sleep(duration);
    }

    @Override
    public Cancellable schedule(Duration delay, Runnable task) {
      return f.clock.schedule(
          delay,
          () -> {
            if (!frozen) task.run();
          });
    }
  }
}
