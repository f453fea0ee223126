package io.watukuy.engine;

import io.watukuy.PollerKey;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.Lease;
import io.watukuy.spi.StateStore;
import io.watukuy.testing.ForwardingStore;
import java.time.Instant;
import java.util.Collection;

/**
 * Simulates a process that dies right after a store call succeeded: once the crash fires, every
 * later call fails, as calls from a dead process would never arrive.
 */
final class CrashingStore extends ForwardingStore {
  enum At {
    AFTER_COMMIT,
    AFTER_FIRST_ACK
  }

  private final At at;
  private volatile boolean dead;

  CrashingStore(StateStore delegate, At at) {
    super(delegate);
    this.at = at;
  }

  private void alive() {
    if (dead) throw new IllegalStateException("process is dead");
  }

  @Override
  public void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now) {
    alive();
    super.commitPoll(key, lease, batch, now);
    if (at == At.AFTER_COMMIT) {
      dead = true;
      throw new IllegalStateException("crash after commit");
    }
  }

  @Override
  public void ackEvents(PollerKey key, Lease lease, Collection<Long> sequences) {
    alive();
    super.ackEvents(key, lease, sequences);
    if (at == At.AFTER_FIRST_ACK) {
      dead = true;
      throw new IllegalStateException("crash after ack");
    }
  }

  @Override
  public void releaseLease(PollerKey key, Lease lease) {
    alive();
    super.releaseLease(key, lease);
  }

  @Override
  public void saveState(PollerKey key, Lease lease, io.watukuy.spi.StatePatch patch, Instant now) {
    alive();
    super.saveState(key, lease, patch, now);
  }

  @Override
  public java.util.List<io.watukuy.spi.OutboxRow> loadPending(
      PollerKey key, long afterSequence, int limit) {
    alive();
    return super.loadPending(key, afterSequence, limit);
  }
}
