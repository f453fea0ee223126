package io.watukuy.spi;

import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import java.time.Instant;
import java.util.Objects;

/**
 * Exclusive right to poll and write one {@link PollerKey} until {@code expiresAt}. The {@code
 * epoch} (fencing token) increments on every acquisition; every fenced store write compares owner
 * and epoch and throws {@link LeaseLostException} on mismatch (guarantee G5).
 *
 * @param owner the instance id of the holder
 * @param epoch fencing token, strictly increasing per key across acquisitions, from 1
 * @param expiresAt the lease is free for others when {@code expiresAt <= now}
 * @since 0.1
 */
public record Lease(String owner, long epoch, Instant expiresAt) {
  /**
   * Creates a lease; stores create leases, callers pass them back.
   *
   * @param owner the instance id of the holder
   * @param epoch the fencing token
   * @param expiresAt when the lease becomes free for others
   * @throws NullPointerException if {@code owner} or {@code expiresAt} is null
   */
  public Lease {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(expiresAt, "expiresAt");
  }
}
