package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Backoff;
import io.watukuy.BatchHandler.BatchResult;
import io.watukuy.DeliveryOptions;
import io.watukuy.DeliveryPolicy;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RetryAfterException;
import io.watukuy.RetryPolicy;
import io.watukuy.Watukuy;
import io.watukuy.spi.OutboxRow;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link RetryAfterException} (docs/guarantees.md, G7): a failure that says when to come back
 * counts an attempt like any other, and its next attempt is due no earlier than the wait it asked
 * for, or the backoff when that is later.
 */
class RetryAfterTest {
  private static final PollerKey ORDERS = PollerKey.of("orders");
  private static final Duration TEN_MINUTES = Duration.ofMinutes(10);

  private final Fixture f = new Fixture();

  private Watukuy engine(Poller<JsonNode> orders) {
    return f.engine("a").delivery(new DeliveryOptions(1, 100, 10)).poller(orders).build();
  }

  private OutboxRow onlyPending() {
    return f.store.loadPending(ORDERS, 0, 10).get(0);
  }

  @Test
  void aBatchFailureWithRetryAfterIsNotAttemptedAgainBeforeItsWait() {
    f.seed(1);
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    AtomicInteger calls = new AtomicInteger();
    Watukuy w =
        engine(orders)
            .onBatch(
                orders,
                events ->
                    calls.incrementAndGet() == 1
                        ? BatchResult.failed(
                            events.get(0),
                            new RetryAfterException("429 Too Many Requests", TEN_MINUTES, null))
                        : BatchResult.ok());
    Instant failedAt = f.clock.now();

    w.tick();

    assertThat(onlyPending().attempts()).isEqualTo(1);
    assertThat(onlyPending().nextAttemptAt()).isEqualTo(failedAt.plus(TEN_MINUTES));

    f.clock.advance(TEN_MINUTES.minusSeconds(1));
    w.tick();
    assertThat(calls.get()).as("not attempted before the Retry-After").isEqualTo(1);

    f.clock.advance(Duration.ofSeconds(1));
    w.tick();
    assertThat(calls.get()).isEqualTo(2);
    assertThat(f.store.countPending(ORDERS)).isZero();
  }

  @Test
  void aSingleEventHandlerThrowingRetryAfterWaitsToo() {
    f.seed(1);
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    Watukuy w =
        engine(orders)
            .on(
                orders,
                event -> {
                  throw new IllegalStateException(
                      "wrapped", new RetryAfterException("slow down", TEN_MINUTES, null));
                });
    Instant failedAt = f.clock.now();

    w.tick();

    assertThat(onlyPending().nextAttemptAt()).isEqualTo(failedAt.plus(TEN_MINUTES));
  }

  @Test
  void aRetryAfterShorterThanTheBackoffKeepsTheBackoff() {
    Instant plain = nextAttemptAfterOneFailure(new IllegalStateException("500"));
    Instant shortWait =
        nextAttemptAfterOneFailure(new RetryAfterException("503", Duration.ofMillis(1), null));

    assertThat(shortWait).isEqualTo(plain);
    assertThat(plain).isAfter(Instant.parse("2026-03-01T10:00:00.001Z"));
  }

  @Test
  void retryAfterStillParksAfterTheLastAttempt() {
    f.seed(1);
    Poller<JsonNode> orders =
        f.timestamp("orders", 50)
            .delivery(DeliveryPolicy.DEFAULT.withRetry(RetryPolicy.attempts(2)))
            .build();
    Watukuy w =
        engine(orders)
            .onBatch(
                orders,
                events ->
                    BatchResult.failed(
                        events.get(0), new RetryAfterException("429", TEN_MINUTES, null)));
    w.tick();
    f.clock.advance(TEN_MINUTES);
    w.tick();

    assertThat(f.store.countParked(ORDERS)).isEqualTo(1);
    assertThat(f.store.countPending(ORDERS)).isZero();
  }

  /** A fresh engine whose handler fails the one event once with {@code failure}. */
  private static Instant nextAttemptAfterOneFailure(RuntimeException failure) {
    Fixture fresh = new Fixture();
    fresh.seed(1);
    Poller<JsonNode> orders =
        fresh
            .timestamp("orders", 50)
            .delivery(
                DeliveryPolicy.DEFAULT.withRetry(
                    new RetryPolicy(3, new Backoff(Duration.ofHours(1), 1.0, Duration.ofHours(1)))))
            .build();
    Watukuy w =
        fresh
            .engine("a")
            .poller(orders)
            .build()
            .onBatch(orders, events -> BatchResult.failed(events.get(0), failure));
    w.tick();
    return fresh.store.loadPending(ORDERS, 0, 10).get(0).nextAttemptAt();
  }
}
