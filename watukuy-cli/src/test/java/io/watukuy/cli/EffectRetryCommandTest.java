package io.watukuy.cli;

import static io.watukuy.cli.EffectsTestStore.NOW;
import static io.watukuy.cli.EffectsTestStore.ORDERS;
import static io.watukuy.cli.EffectsTestStore.T0;
import static io.watukuy.cli.EffectsTestStore.cli;
import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.spi.EffectCursor;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.Lease;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code watukuy effects retry} (docs/config.md, "Effects commands"; docs/effects.md, "Retry now")
 * on a SQLite store whose effect tables are seeded through the EffectStore SPI as a stopped engine
 * leaves them, on a fixed clock.
 */
class EffectRetryCommandTest {
  private static final String NOTIFY = "NotifyCustomer";

  @TempDir Path dir;
  private EffectsTestStore fx;
  private EffectStore effects;

  /**
   * NotifyCustomer on orders at position 2: 3 (lane customer:7) and 5 (customer:9) failed and wait
   * a minute, 4 done, 1 failed below the watermark (a row the watermark passed, as a skip or a
   * rewind can leave); the engine's lease expired at T0 + 30 s.
   */
  @BeforeEach
  void seed() {
    fx = new EffectsTestStore(dir);
    effects = fx.effects;
    Lease engine = fx.engineLease(NOTIFY);
    effects.saveCursor(new EffectCursor(NOTIFY, ORDERS, 2, null, Map.of(), T0), engine);
    effects.saveInvocation(row(1, "customer:6", InvocationStatus.FAILED), engine);
    effects.saveInvocation(row(3, "customer:7", InvocationStatus.FAILED), engine);
    effects.saveInvocation(row(4, "customer:8", InvocationStatus.DONE), engine);
    effects.saveInvocation(row(5, "customer:9", InvocationStatus.FAILED), engine);
  }

  @AfterEach
  void close() {
    fx.close();
  }

  private static InvocationRow row(long position, String lane, InvocationStatus status) {
    boolean failed = status == InvocationStatus.FAILED;
    return new InvocationRow(
        NOTIFY,
        ORDERS,
        position,
        lane,
        "created",
        status,
        7,
        failed ? "HTTP 503 from crm" : null,
        failed ? NOW.plusSeconds(60) : null,
        false,
        "1.0",
        T0,
        T0);
  }

  private InvocationRow stored(long position) {
    return effects.loadInvocation(NOTIFY, ORDERS, position).orElseThrow();
  }

  @Test
  void everyFailedRowAboveThePositionIsDueNowWithItsAttemptKeptAndTheLeaseGivenBack() {
    CliRun r = cli("effects", "retry", "--store", fx.uri(), NOTIFY);

    assertThat(r.exit()).as(r.stderr()).isZero();
    assertThat(r.stdout())
        .isEqualTo(
            "orders\t3\tcustomer:7\tattempt 7\tdue 2026-01-05T11:00:00Z\n"
                + "orders\t5\tcustomer:9\tattempt 7\tdue 2026-01-05T11:00:00Z\n");
    assertThat(r.stderr())
        .isEqualTo(
            "watukuy: effect NotifyCustomer: 2 failed position(s) due now; the next engine start"
                + " runs them at once\n");
    for (long p : new long[] {3, 5}) {
      assertThat(stored(p).retryAt()).isEqualTo(NOW);
      assertThat(stored(p).status()).isEqualTo(InvocationStatus.FAILED);
      assertThat(stored(p).attempt()).isEqualTo(7);
      assertThat(stored(p).error()).isEqualTo("HTTP 503 from crm");
    }
    // below the watermark nothing runs again, so nothing is touched there; a done row neither
    assertThat(stored(1).retryAt()).isEqualTo(NOW.plusSeconds(60));
    assertThat(stored(4)).isEqualTo(row(4, "customer:8", InvocationStatus.DONE));
    // the lease is given back: an engine may start at once
    assertThat(effects.acquireEffectLease(NOTIFY, "engine-2", Duration.ofSeconds(30), NOW))
        .isPresent();
  }

  @Test
  void aRetryOfAQuarantinedEffectSaysTheQuarantineStillHoldsIt() {
    effects.setQuarantine(NOTIFY, "crm down", NOW.minusSeconds(10));

    CliRun r = cli("effects", "retry", "--store", fx.uri(), NOTIFY);

    assertThat(r.exit()).as(r.stderr()).isZero();
    assertThat(r.stderr())
        .isEqualTo(
            "watukuy: effect NotifyCustomer: 2 failed position(s) due now; it is quarantined, so"
                + " nothing runs until `watukuy effects release` (the retry does not release"
                + " it)\n");
    assertThat(effects.loadEffect(NOTIFY).orElseThrow().quarantined()).isTrue();
  }

  @Test
  void aPartitionOfAnUnpartitionedSourceIsNamedAsSuch() {
    CliRun r = cli("effects", "retry", "--store", fx.uri(), NOTIFY, "3", "--partition", "eu");

    assertThat(r.exit()).isEqualTo(Main.USAGE);
    assertThat(r.stderr())
        .isEqualTo(
            "watukuy: effect NotifyCustomer: no partition 'eu': its source orders is not"
                + " partitioned (leave out --partition)\n");
    assertThat(stored(3).retryAt()).isEqualTo(NOW.plusSeconds(60));
  }

  @Test
  void onePositionIsDueNowAndTheOthersKeepTheirRetryTime() {
    CliRun r = cli("effects", "retry", "--store", fx.uri(), NOTIFY, "5");

    assertThat(r.exit()).as(r.stderr()).isZero();
    assertThat(r.stdout())
        .isEqualTo("orders\t5\tcustomer:9\tattempt 7\tdue 2026-01-05T11:00:00Z\n");
    assertThat(stored(5).retryAt()).isEqualTo(NOW);
    assertThat(stored(3).retryAt()).isEqualTo(NOW.plusSeconds(60));
  }

  @Test
  void aPositionThatHasNotFailedIsAUsageErrorAndNothingIsWritten() {
    CliRun done = cli("effects", "retry", "--store", fx.uri(), NOTIFY, "4");
    CliRun never = cli("effects", "retry", "--store", fx.uri(), NOTIFY, "9");

    assertThat(done.exit()).isEqualTo(Main.USAGE);
    assertThat(done.stderr())
        .isEqualTo(
            "watukuy: effect NotifyCustomer: position 4 on orders has not failed (it is done);"
                + " nothing retried\n");
    assertThat(never.exit()).isEqualTo(Main.USAGE);
    assertThat(never.stderr())
        .contains("position 9 on orders has not failed (it has no invocation)");
    assertThat(done.stdout()).isEmpty();
    assertThat(stored(4)).isEqualTo(row(4, "customer:8", InvocationStatus.DONE));
    assertThat(stored(3).retryAt()).isEqualTo(NOW.plusSeconds(60));
  }

  @Test
  void refusedWhileAnEngineHoldsTheEffect() {
    effects.acquireEffectLease(NOTIFY, "engine-2", Duration.ofSeconds(30), NOW.minusSeconds(5));

    CliRun r = cli("effects", "retry", "--store", fx.uri(), NOTIFY);

    assertThat(r.exit()).isEqualTo(Main.FAILED);
    assertThat(r.stderr())
        .isEqualTo(
            "watukuy: effect NotifyCustomer is running: engine-2 holds its lease until"
                + " 2026-01-05T11:00:25Z; stop that engine first (nothing retried)\n");
    assertThat(r.stdout()).isEmpty();
    assertThat(stored(3).retryAt()).isEqualTo(NOW.plusSeconds(60));
    assertThat(stored(5).retryAt()).isEqualTo(NOW.plusSeconds(60));
  }

  @Test
  void anUnknownEffectIsAUsageErrorNamingTheOnesTheStoreHolds() {
    CliRun r = cli("effects", "retry", "--store", fx.uri(), "Nope");
    assertThat(r.exit()).isEqualTo(Main.USAGE);
    assertThat(r.stderr()).contains("no effect Nope (it holds: NotifyCustomer)");
  }
}
