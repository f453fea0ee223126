package io.watukuy.spi;

import io.watukuy.PollerKey;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One invocation of an effect's arm: the event at one log position of one source key, run in one
 * lane (docs/effects.md, "Invocations"). The store keeps one row per {@code (effect, source,
 * position)}; a retry updates the row. Rows above the effect's watermark are what a restart uses to
 * know which positions their lanes already completed ("lane rows"); rows at or below it are history
 * the retention sweep removes.
 *
 * @param effect the effect's name
 * @param source the key (poller, partition) whose log the effect reads
 * @param position the event's log position (its outbox sequence); positive
 * @param lane the lane the arm's key resolved to, as {@code scheme:value} text
 * @param eventType the event's type as logged ({@code created}, {@code updated}, {@code deleted})
 * @param status where the invocation stands
 * @param attempt attempts started so far; at least 1
 * @param error the last failure's message (redacted), or {@code null}
 * @param retryAt when a {@link InvocationStatus#FAILED} invocation is tried again, else {@code
 *     null}
 * @param skipRequested whether an operator asked to skip this failed position (honoured by the
 *     running engine at its next look at the lane)
 * @param version the code version that last ran it (the effect's declared version)
 * @param startedAt when the latest attempt started (each attempt records its own start, so a row
 *     running for long is one attempt that hangs, not a lane retried for long)
 * @param updatedAt when the row last changed
 * @since 0.1
 */
public record InvocationRow(
    String effect,
    PollerKey source,
    long position,
    String lane,
    String eventType,
    InvocationStatus status,
    int attempt,
    @Nullable String error,
    @Nullable Instant retryAt,
    boolean skipRequested,
    String version,
    Instant startedAt,
    Instant updatedAt) {
  /**
   * Creates a row.
   *
   * @throws NullPointerException if a field other than {@code error} or {@code retryAt} is null
   * @throws IllegalArgumentException if {@code position} is not positive or {@code attempt} is
   *     below 1
   */
  public InvocationRow {
    Objects.requireNonNull(effect, "effect");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(lane, "lane");
    Objects.requireNonNull(eventType, "eventType");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(startedAt, "startedAt");
    Objects.requireNonNull(updatedAt, "updatedAt");
    if (position < 1) throw new IllegalArgumentException("position must be > 0: " + position);
    if (attempt < 1) throw new IllegalArgumentException("attempt must be >= 1: " + attempt);
  }

  /**
   * This row with a new retry time, as "Retry now" saves it (docs/effects.md, "Retry now"): every
   * other field, the status, attempt count and last error among them, is kept, so the backoff after
   * another failure goes on from the same attempt.
   *
   * @param retryAt when the invocation is tried again; {@code null} for none
   * @param updatedAt when the row changes (usually the same instant as {@code retryAt})
   * @return a new row; this one is unchanged
   * @throws NullPointerException if {@code updatedAt} is null
   * @since 0.1
   */
  public InvocationRow withRetryAt(@Nullable Instant retryAt, Instant updatedAt) {
    return new InvocationRow(
        effect,
        source,
        position,
        lane,
        eventType,
        status,
        attempt,
        error,
        retryAt,
        skipRequested,
        version,
        startedAt,
        updatedAt);
  }
}
