package io.watukuy.spi;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a poll cycle starts from, read with its lease in one call ({@link
 * StateStore#acquireLeaseAndLoad}; docs/architecture.md, "What an idle poll costs"): the new lease,
 * the key's state as it was when the lease was taken, and whether the outbox holds a pending row,
 * so that a cycle with nothing to deliver skips the drain's read.
 *
 * @param lease the lease just acquired
 * @param state the key's state, or {@code null} before its first write
 * @param pending whether at least one outbox row of the key is pending; a store may answer {@code
 *     true} when it cannot tell cheaply, never {@code false} when a row is pending
 * @since 0.1
 */
public record LeasedState(Lease lease, @Nullable PollerState state, boolean pending) {
  /**
   * Creates the start of a cycle.
   *
   * @param lease the lease just acquired
   * @param state the state, or {@code null}
   * @param pending whether a pending outbox row may exist
   * @throws NullPointerException if {@code lease} is null
   */
  public LeasedState {
    Objects.requireNonNull(lease, "lease");
  }
}
