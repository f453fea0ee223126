package io.watukuy.auth;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * The token signers' wait after a failed token request: the same failure is answered at once until
 * the wait has passed, and the wait doubles after each failure up to {@link
 * ClientCredentialsSigner#MAX_BACKOFF}, so no key, partition or retry makes a hot loop of token
 * requests. Not thread-safe: the signer calls it under its own lock.
 */
final class FailureBackoff {
  private final Duration first;
  private Duration next;
  private @Nullable RuntimeException failure;
  private @Nullable Instant retryAt;

  FailureBackoff(Duration first) {
    this.first = first;
    this.next = first;
  }

  /** Throws the last failure again while its wait lasts. */
  void throwIfWaiting(Instant now) {
    if (failure != null && retryAt != null && now.isBefore(retryAt)) throw failure;
  }

  void succeeded() {
    failure = null;
    retryAt = null;
    next = first;
  }

  void failed(RuntimeException e, Instant now) {
    failure = e;
    retryAt = now.plus(next);
    Duration doubled = next.multipliedBy(2);
    next =
        doubled.compareTo(ClientCredentialsSigner.MAX_BACKOFF) > 0
            ? ClientCredentialsSigner.MAX_BACKOFF
            : doubled;
  }
}
