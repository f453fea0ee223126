package io.watukuy.effects;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Thrown by {@link EffectHttp#send} when every attempt met a transport error or a status that
 * clears on its own (408, 425, 429, 5xx), or when a {@code Retry-After} asked for a longer wait
 * than the next re-send (docs/effects.md, "HTTP calls"). Nothing was journaled; the invocation
 * fails and is retried under its backoff, which {@link #retryAfter()} raises.
 *
 * <p>The message names the call by its label (method, origin, path), never its query, headers or
 * body.
 *
 * @since 0.1
 */
public final class HttpRetriesExhausted extends IOException {
  private static final long serialVersionUID = 1L;

  private final String label;
  private final int attempts;
  private final int lastStatus;
  private final @Nullable Duration retryAfter;

  /**
   * Creates the failure.
   *
   * @param label the call's label
   * @param attempts how many attempts were sent
   * @param lastStatus the last status received, or 0 when the last attempt was a transport error
   * @param retryAfter the longest {@code Retry-After} received, capped at {@link
   *     EffectHttp#MAX_RETRY_AFTER}, or null when none was
   * @param lastError the last transport error, or null
   */
  public HttpRetriesExhausted(
      String label,
      int attempts,
      int lastStatus,
      @Nullable Duration retryAfter,
      @Nullable Throwable lastError) {
    super(message(label, attempts, lastStatus, retryAfter, lastError), lastError);
    this.label = label;
    this.attempts = attempts;
    this.lastStatus = lastStatus;
    this.retryAfter = retryAfter;
  }

  private static String message(
      String label,
      int attempts,
      int lastStatus,
      @Nullable Duration retryAfter,
      @Nullable Throwable lastError) {
    String last =
        lastStatus > 0
            ? "status " + lastStatus
            : lastError == null ? "no response" : lastError.getClass().getSimpleName();
    return label
        + ": no usable response after "
        + attempts
        + (attempts == 1 ? " attempt" : " attempts")
        + " (last: "
        + last
        + ")"
        + (retryAfter == null ? "" : "; the server asked to wait " + retryAfter.toSeconds() + " s");
  }

  /**
   * The call's label: method, origin and path.
   *
   * @return the label
   */
  public String label() {
    return label;
  }

  /**
   * How many attempts were sent.
   *
   * @return from 1 to {@link EffectHttp#MAX_ATTEMPTS}
   */
  public int attempts() {
    return attempts;
  }

  /**
   * The last status received.
   *
   * @return the status, or 0 when the last attempt got no response
   */
  public int lastStatus() {
    return lastStatus;
  }

  /**
   * The longest {@code Retry-After} the server sent, capped at {@link EffectHttp#MAX_RETRY_AFTER}:
   * the invocation waits at least this long before its next attempt.
   *
   * @return the wait, or empty when the server sent none
   */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }
}
