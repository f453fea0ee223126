package io.watukuy.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.PollerKey;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** {@link InvocationRow#withRetryAt}: the copy "Retry now" saves (docs/effects.md, "Retry now"). */
class InvocationRowTest {
  private static final Instant STARTED = Instant.parse("2026-01-05T10:00:00Z");
  private static final Instant NOW = Instant.parse("2026-01-05T11:00:00Z");

  private static final InvocationRow FAILED =
      new InvocationRow(
          "NotifyCustomer",
          PollerKey.of("accounts", "eu"),
          3,
          "customer:7",
          "created",
          InvocationStatus.FAILED,
          7,
          "HTTP 503 from crm",
          NOW.plusSeconds(60),
          true,
          "1.0",
          STARTED,
          STARTED);

  @Test
  void onlyTheRetryAndUpdateTimesChange() {
    InvocationRow due = FAILED.withRetryAt(NOW, NOW);

    assertThat(due.retryAt()).isEqualTo(NOW);
    assertThat(due.updatedAt()).isEqualTo(NOW);
    // the attempt count is kept, so the backoff after another failure goes on from it
    assertThat(due)
        .usingRecursiveComparison()
        .ignoringFields("retryAt", "updatedAt")
        .isEqualTo(FAILED);
    assertThat(FAILED.retryAt()).isEqualTo(NOW.plusSeconds(60));
  }

  @Test
  void noRetryTimeIsAllowedButAnUpdateTimeIsNeeded() {
    assertThat(FAILED.withRetryAt(null, NOW).retryAt()).isNull();
    assertThatThrownBy(() -> FAILED.withRetryAt(NOW, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("updatedAt");
  }
}
