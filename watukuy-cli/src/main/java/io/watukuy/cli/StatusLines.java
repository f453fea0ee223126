package io.watukuy.cli;

import io.watukuy.HttpResult;
import io.watukuy.HttpStatusException;
import io.watukuy.Inspection;
import io.watukuy.KeyInspection;
import io.watukuy.KeyReport;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.sink.SinkConfig;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * How {@code run --once} and {@code inspect} word a key's state on one line: why a key was skipped
 * (and whether that is healthy, docs/operations.md, "Health"), a throttle's end, the last error and
 * success with how long ago. Apart from {@link Cli}, which runs the commands.
 */
final class StatusLines {
  private StatusLines() {}

  /**
   * {@code throttled by HTTP 429 until 2026-11-30T10:20:00Z, in 2m}, the instant from the store.
   */
  static String throttled(HttpStatusException e, Inspection after, PollerKey key) {
    String text = "throttled by HTTP " + e.status();
    for (KeyInspection k : after.pollers()) {
      Instant until = k.throttledUntil();
      if (k.poller().equals(key.poller())
          && k.partition().equals(key.partition())
          && until != null) {
        // Whole seconds rounded up, never earlier than the wait: a Retry-After of 120 reads
        // "in 2m", not "in 1m59s", and the end carries no nanoseconds.
        Instant shown = until.truncatedTo(ChronoUnit.SECONDS);
        if (shown.isBefore(until)) shown = shown.plusSeconds(1);
        long ms = Math.max(0, Duration.between(after.at(), until).toMillis());
        return text
            + " until "
            + shown
            + ", in "
            + SinkConfig.formatDuration(Duration.ofMillis((ms + 999) / 1000 * 1000))
            + notUnderstood(e, after.at());
      }
    }
    return text + notUnderstood(e, after.at());
  }

  /**
   * {@code ; Retry-After 'soon' not understood, default backoff} when the vendor sent a Retry-After
   * that is neither delay-seconds nor an HTTP-date, so the wait shown is ours and may be far
   * shorter than the vendor meant; empty otherwise.
   */
  static String notUnderstood(HttpStatusException e, Instant now) {
    String value = e.header("retry-after");
    if (value == null) return "";
    HttpResult asReceived =
        HttpResult.of(e.status(), e.method(), e.url(), e.headers(), new byte[0], now);
    if (asReceived.retryAfter().isPresent()) return "";
    String shown = value.length() <= 64 ? value : value.substring(0, 61) + "...";
    return "; Retry-After '" + shown + "' not understood, default backoff";
  }

  static boolean waitsByDesign(KeyReport.Outcome o) {
    return o == KeyReport.Outcome.SKIPPED_PAUSED
        || o == KeyReport.Outcome.SKIPPED_THROTTLED
        || o == KeyReport.Outcome.SKIPPED_LEASED
        || o == KeyReport.Outcome.DEFERRED;
  }

  static @Nullable KeyInspection find(Inspection in, PollerKey key) {
    for (KeyInspection k : in.pollers()) if (k.key().equals(key)) return k;
    return null;
  }

  static String skipReason(KeyReport.Outcome o, @Nullable KeyInspection k) {
    if (o == KeyReport.Outcome.SKIPPED_LEASED && k != null && k.lease() != null)
      return "leased by instance " + k.lease().owner() + " until " + k.lease().expiresAt();
    return skipReason(o);
  }

  static String skipReason(KeyReport.Outcome o) {
    return switch (o) {
      case SKIPPED_NOT_DUE -> "not due";
      case SKIPPED_LEASED -> "leased by another instance";
      case SKIPPED_PAUSED -> "paused";
      case SKIPPED_THROTTLED -> "throttled: Retry-After not yet passed";
      case SKIPPED_CIRCUIT_OPEN -> "circuit open: probe not yet due";
      case DEFERRED -> "deferred: no rate-budget token in time";
      case POLLED -> "polled";
    };
  }

  /** {@code 3m20s ago}, or {@code -} for never. */
  static String ago(@Nullable Instant at, Instant now) {
    if (at == null) return "-";
    return SinkConfig.formatDuration(
            Duration.ofMillis(Math.max(0, Duration.between(at, now).toMillis())))
        + " ago";
  }

  /**
   * The last error with how long ago, its name and message, and whether the key succeeded since: an
   * old 429 must not read as a current problem after the key recovered.
   */
  static String lastError(KeyInspection k, Instant now, UnaryOperator<String> redact) {
    ScheduleState.LastError e = k.lastError();
    if (e == null) return "-";
    // A poll that succeeded after a delivery failure says nothing of the delivery: that error is
    // cleared once events are delivered again, so while it shows, delivery has not recovered.
    boolean since =
        k.lastSuccessAt() != null
            && k.lastSuccessAt().isAfter(e.at())
            && !e.name().equals(SinkLines.DELIVERY_FAILURE);
    return ago(e.at(), now)
        + (since ? " (succeeded since)" : "")
        + ": "
        + e.name()
        + ": "
        + redact.apply(e.message());
  }
}
