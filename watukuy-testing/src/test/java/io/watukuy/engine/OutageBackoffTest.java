package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Backoff;
import io.watukuy.ChangeEvent;
import io.watukuy.HandlerUnavailableException;
import io.watukuy.KeyInspection;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Schedule;
import io.watukuy.StoreException;
import io.watukuy.Watukuy;
import io.watukuy.spi.Lease;
import io.watukuy.spi.PollerState;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.ForwardingStore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The daemon backs off a key whose store is down (or refuses) and a key whose destination is down,
 * as it backs off a fetch error (issue 16, §3 and §6): {@code schedule.backoff} with full jitter
 * instead of one attempt per {@code schedule.min}, and one log line when the outage starts and one
 * when it ends, not one per attempt.
 */
class OutageBackoffTest {
  private static final Duration MIN = Duration.ofMillis(500);

  /** A store whose server can go away: every call a cycle makes throws while it is down. */
  private static final class DownStore extends ForwardingStore {
    final AtomicBoolean down = new AtomicBoolean();
    final List<Instant> attempts = new CopyOnWriteArrayList<>();
    volatile io.watukuy.testing.VirtualClock clock;

    DownStore() {
      super(new MemoryStore());
    }

    private void check(String call) {
      if (!down.get()) return;
      attempts.add(clock.now());
      throw new StoreException("store redis://127.0.0.1:6379/0: " + call + ": NOPERM", null);
    }

    @Override
    public Optional<PollerState> loadState(PollerKey key) {
      check("loadState");
      return super.loadState(key);
    }

    @Override
    public Optional<Lease> acquireLease(PollerKey key, String owner, Duration ttl, Instant now) {
      check("acquireLease");
      return super.acquireLease(key, owner, ttl, now);
    }

    @Override
    public long countPending(PollerKey key) {
      check("countPending");
      return super.countPending(key);
    }
  }

  private static Poller<JsonNode> poller(Fixture f) {
    return f.snapshot("orders", 10)
        .schedule(Schedule.every(MIN).withAdaptive(false).withJitter(0))
        .build();
  }

  /** What the engine logs (slf4j-simple writes to System.err) while {@code body} runs. */
  static List<String> logged(Runnable body) {
    PrintStream before = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      body.run();
    } finally {
      System.setErr(before);
    }
    return captured.toString(StandardCharsets.UTF_8).lines().toList();
  }

  @Test
  void aStoreThatIsDownIsRetriedWithTheFetchBackoffAndLoggedOncePerChange() {
    DownStore store = new DownStore();
    Fixture g = new Fixture(store);
    store.clock = g.clock;
    g.seed(3);
    Poller<JsonNode> p = poller(g);
    List<ChangeEvent<JsonNode>> events = new CopyOnWriteArrayList<>();
    Watukuy w = g.engine("a").poller(p).build();
    w.on(p, events::add);

    List<String> log =
        logged(
            () -> {
              w.start();
              g.clock.advance(Duration.ofSeconds(1)); // healthy: the 3 items are delivered
              store.down.set(true);
              g.clock.advance(Duration.ofSeconds(60));
              store.down.set(false);
              g.api.put("o004", java.util.Map.of("n", 4));
              // Longer than backoff.max (10 min): whatever the jitter, the next attempt comes.
              g.clock.advance(Duration.ofMinutes(11));
              w.stop();
            });

    // One attempt per schedule.min would be 120 in 60 s; the backoff caps are 1, 2, 4, 8, 16,
    // 32 s, so at most a handful of attempts fit, each within its cap of the one before.
    List<Instant> at = store.attempts;
    assertThat(at).hasSizeBetween(2, 12);
    Backoff backoff = Backoff.DEFAULT_POLL;
    for (int n = 1; n < at.size(); n++) {
      Duration gap = Duration.between(at.get(n - 1), at.get(n));
      assertThat(gap)
          .as("wait after failure %d", n)
          .isLessThanOrEqualTo(backoff.cap(n).plusMillis(10));
    }
    assertThat(events).hasSize(4); // o004 came after the store returned
    List<String> about = log.stream().filter(l -> l.contains("poller orders")).toList();
    assertThat(about).hasSize(2);
    assertThat(about.get(0))
        .contains(
            "poller orders: store failing, retrying with backoff: store redis://127.0.0.1:6379/0:");
    assertThat(about.get(1))
        .contains("poller orders: store recovered after " + at.size() + " failed attempts");
  }

  @Test
  void aDestinationThatIsDownIsRetriedWithBackoffAndInspectNamesIt() {
    Fixture f = new Fixture();
    f.seed(2);
    Poller<JsonNode> p = poller(f);
    AtomicBoolean down = new AtomicBoolean(true);
    List<Instant> attempts = new CopyOnWriteArrayList<>();
    List<ChangeEvent<JsonNode>> events = new CopyOnWriteArrayList<>();
    Watukuy w = f.engine("a").poller(p).build();
    w.on(
        p,
        e -> {
          if (down.get()) {
            attempts.add(f.clock.now());
            throw new HandlerUnavailableException(
                "output out.jsonl: No space left on device", null);
          }
          events.add(e);
        });

    List<String> log =
        logged(
            () -> {
              w.start();
              f.clock.advance(Duration.ofSeconds(60));
              KeyInspection k = w.inspect().pollers().get(0);
              assertThat(k.lastError()).isNotNull();
              assertThat(k.lastError().name()).isEqualTo("HandlerUnavailableException");
              assertThat(k.lastError().message())
                  .isEqualTo("output out.jsonl: No space left on device");
              down.set(false);
              f.clock.advance(Duration.ofMinutes(11));
              w.stop();
            });

    assertThat(attempts).hasSizeBetween(2, 12);
    for (int n = 1; n < attempts.size(); n++) {
      assertThat(Duration.between(attempts.get(n - 1), attempts.get(n)))
          .isLessThanOrEqualTo(Backoff.DEFAULT_POLL.cap(n).plusMillis(10));
    }
    assertThat(events).hasSize(2);
    assertThat(log.stream().filter(l -> l.contains("destination failing")).count()).isEqualTo(1);
    assertThat(log.stream().filter(l -> l.contains("destination recovered")).count()).isEqualTo(1);
  }
}
