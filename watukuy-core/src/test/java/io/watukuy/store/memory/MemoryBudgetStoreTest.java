package io.watukuy.store.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.BudgetLimit;
import io.watukuy.spi.RateBudgetStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The token bucket of {@link RateBudgetStore}'s Javadoc, computed by {@link MemoryBudgetStore}:
 * full at first use, refilled at requests per {@code per}, capped at burst, exact over any number
 * of refills, and never more than {@code burst + requests × T / per} takes in an interval of T.
 */
class MemoryBudgetStoreTest {
  static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
  final MemoryBudgetStore store = new MemoryBudgetStore();

  private Duration take(BudgetLimit limit, long atMs) {
    return store.tryTake("erp", limit, 1, T0.plusMillis(atMs));
  }

  @Test
  void aNewBucketHoldsBurstTokensThenAnswersTheWaitForTheNext() {
    BudgetLimit twoPer10s = BudgetLimit.of(2, Duration.ofSeconds(10));
    assertThat(take(twoPer10s, 0)).isZero();
    assertThat(take(twoPer10s, 0)).isZero();
    // Empty: one token per 5 s.
    assertThat(take(twoPer10s, 0)).isEqualTo(Duration.ofSeconds(5));
    assertThat(take(twoPer10s, 2_000)).isEqualTo(Duration.ofSeconds(3));
    assertThat(take(twoPer10s, 5_000)).isZero();
    assertThat(take(twoPer10s, 5_000)).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void aFailedTakeTakesNothing() {
    BudgetLimit onePerSecond = BudgetLimit.of(1, Duration.ofSeconds(1));
    assertThat(take(onePerSecond, 0)).isZero();
    for (int i = 0; i < 5; i++)
      assertThat(take(onePerSecond, 500)).isEqualTo(Duration.ofMillis(500));
    assertThat(take(onePerSecond, 1_000)).isZero();
  }

  @Test
  void burstIsTheCapacityAndAnIdleBucketFillsUpToItOnly() {
    BudgetLimit burst3 = new BudgetLimit(1, Duration.ofSeconds(6), 3);
    for (int i = 0; i < 3; i++) assertThat(take(burst3, 0)).isZero();
    assertThat(take(burst3, 0)).isEqualTo(Duration.ofSeconds(6));
    // An hour idle refills 600 tokens' worth, but the bucket holds 3.
    for (int i = 0; i < 3; i++) assertThat(take(burst3, 3_600_000)).isZero();
    assertThat(take(burst3, 3_600_000)).isEqualTo(Duration.ofSeconds(6));
  }

  @Test
  void refillIsContinuousAndPartialTokensCount() {
    BudgetLimit tenPerMinute = BudgetLimit.of(10, Duration.ofMinutes(1));
    for (int i = 0; i < 10; i++) assertThat(take(tenPerMinute, 0)).isZero();
    // 9 s later: 1.5 tokens; one is taken, half a token is left, the next is 3 s away.
    assertThat(take(tenPerMinute, 9_000)).isZero();
    assertThat(take(tenPerMinute, 9_000)).isEqualTo(Duration.ofSeconds(3));
    assertThat(take(tenPerMinute, 12_000)).isZero();
  }

  @Test
  void aFractionalRateDoesNotDriftOverThousandsOfRefills() {
    // 3 per 10 s: a token every 3333.33 ms. The n-th token after the burst is due at
    // ceil(n × 10000 / 3) ms exactly, also after 30000 of them.
    BudgetLimit threePer10s = BudgetLimit.of(3, Duration.ofSeconds(10));
    for (int i = 0; i < 3; i++) assertThat(take(threePer10s, 0)).isZero();
    long now = 0;
    for (long n = 1; n <= 30_000; n++) {
      Duration wait = take(threePer10s, now);
      now += wait.toMillis();
      assertThat(take(threePer10s, now)).isZero();
      long expected = -Math.floorDiv(-n * 10_000, 3);
      if (now != expected) assertThat(now).as("token %d", n).isEqualTo(expected);
    }
    assertThat(now).isEqualTo(100_000_000L); // 30000 tokens at 3 per 10 s: 100000 s
  }

  @Test
  void severalPermitsAreTakenTogetherOrNotAtAll() {
    BudgetLimit fivePer5s = BudgetLimit.of(5, Duration.ofSeconds(5));
    assertThat(store.tryTake("erp", fivePer5s, 4, T0)).isZero();
    assertThat(store.tryTake("erp", fivePer5s, 3, T0)).isEqualTo(Duration.ofSeconds(2));
    assertThat(store.tryTake("erp", fivePer5s, 1, T0)).isZero();
    assertThatThrownBy(() -> store.tryTake("erp", fivePer5s, 6, T0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("budget erp: permits must be 1 to burst 5, but was 6");
    assertThatThrownBy(() -> store.tryTake("erp", fivePer5s, 0, T0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aClockBehindTheLastTakeCountsAsTheLastTake() {
    BudgetLimit onePer10s = BudgetLimit.of(1, Duration.ofSeconds(10));
    assertThat(take(onePer10s, 20_000)).isZero();
    // Another instance's clock reads 5 s earlier: it counts as the last take's instant (the
    // bucket's time does not run backwards), and the next token is 10 s after that.
    assertThat(take(onePer10s, 15_000)).isEqualTo(Duration.ofSeconds(10));
    assertThat(take(onePer10s, 30_000)).isZero();
  }

  @Test
  void budgetsAreIndependentByName() {
    BudgetLimit one = BudgetLimit.of(1, Duration.ofSeconds(1));
    assertThat(store.tryTake("a", one, 1, T0)).isZero();
    assertThat(store.tryTake("b", one, 1, T0)).isZero();
    assertThat(store.tryTake("a", one, 1, T0)).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void aChangedLimitKeepsTheWholeTokensUpToTheNewBurst() {
    assertThat(store.tryTake("erp", BudgetLimit.of(10, Duration.ofSeconds(10)), 2, T0)).isZero();
    // 8 tokens left; the new limit holds at most 5.
    BudgetLimit smaller = BudgetLimit.of(5, Duration.ofSeconds(5));
    assertThat(store.tryTake("erp", smaller, 5, T0)).isZero();
    assertThat(store.tryTake("erp", smaller, 1, T0)).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void aSubMillisecondPeriodIsRoundedUp() {
    // 1 per 1.0005 ms counts as 1 per 2 ms: slower, never faster than declared.
    BudgetLimit odd = BudgetLimit.of(1, Duration.ofNanos(1_000_500));
    assertThat(take(odd, 0)).isZero();
    assertThat(take(odd, 0)).isEqualTo(Duration.ofMillis(2));
  }

  @Test
  void aHugeBucketIsStillExact() {
    BudgetLimit huge = new BudgetLimit(1, Duration.ofDays(365L * 1000), Integer.MAX_VALUE);
    assertThat(store.tryTake("erp", huge, Integer.MAX_VALUE, T0)).isZero();
    assertThat(store.tryTake("erp", huge, 1, T0)).isEqualTo(Duration.ofDays(365L * 1000));
  }

  /**
   * G6 over random patterns: tries at random instants, some of several permits; in every interval
   * [a, b] between two successful takes the tokens taken are at most burst + requests × (b − a) /
   * per, and a take retried after the wait it was told succeeds.
   */
  @Test
  void noIntervalEverHoldsMoreThanBurstPlusTheRefill() {
    for (long seed = 1; seed <= 200; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      int requests = 1 + random.nextInt(20);
      long perMs = 1 + random.nextInt(60_000);
      int burst = 1 + random.nextInt(30);
      BudgetLimit limit = new BudgetLimit(requests, Duration.ofMillis(perMs), burst);
      MemoryBudgetStore s = new MemoryBudgetStore();
      List<long[]> takes = new ArrayList<>(); // {at, permits}
      long now = random.nextInt(1000);
      for (int i = 0; i < 400; i++) {
        int permits = random.nextInt(4) == 0 ? 1 + random.nextInt(burst) : 1;
        Duration wait = s.tryTake("b", limit, permits, T0.plusMillis(now));
        if (wait.isZero()) {
          takes.add(new long[] {now, permits});
        } else {
          assertThat(wait).isPositive();
          if (random.nextBoolean()) {
            now += wait.toMillis();
            assertThat(s.tryTake("b", limit, permits, T0.plusMillis(now)))
                .as("seed %d", seed)
                .isZero();
            takes.add(new long[] {now, permits});
          }
        }
        now +=
            random.nextInt(4) == 0 ? random.nextLong(2 * perMs) : random.nextLong(1 + perMs / 10);
      }
      for (int i = 0; i < takes.size(); i++) {
        long taken = 0;
        for (int j = i; j < takes.size(); j++) {
          taken += takes.get(j)[1];
          long t = takes.get(j)[0] - takes.get(i)[0];
          // taken <= burst + requests × t / per, in integers.
          if (taken * perMs > (long) burst * perMs + requests * t)
            assertThat(taken)
                .as(
                    "seed %d: %d tokens in %d ms (burst %d, %d per %d ms)",
                    seed, taken, t, burst, requests, perMs)
                .isLessThanOrEqualTo(burst + requests * t / perMs);
        }
      }
    }
  }
}
