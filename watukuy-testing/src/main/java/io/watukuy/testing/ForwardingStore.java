package io.watukuy.testing;

import io.watukuy.PollerKey;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.HttpValidator;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.StateStore;
import io.watukuy.spi.StoreCapabilities;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A {@link StateStore} that forwards every call to another: extend it and override the calls to
 * observe or disturb (fault injection, recording).
 *
 * <p>The two calls that combine others, {@link StateStore#acquireLeaseAndLoad} and {@link
 * StateStore#saveStateAndRelease}, are not forwarded: they run the {@link StateStore} defaults over
 * this class's own methods, so that a subclass overriding {@code acquireLease}, {@code loadState},
 * {@code saveState} or {@code releaseLease} still sees every lease and state call the engine makes.
 * A subclass that wants the delegate's single round trip overrides them to forward ({@link
 * CountingStore} does).
 *
 * @since 0.1
 */
public class ForwardingStore implements StateStore {
  /** The store every call is forwarded to. */
  protected final StateStore delegate;

  /**
   * A store that forwards to {@code delegate}. Thread-safe when the delegate is.
   *
   * @param delegate the store that does the work
   * @throws NullPointerException if {@code delegate} is null
   */
  public ForwardingStore(StateStore delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  @Override
  public StoreCapabilities capabilities() {
    return delegate.capabilities();
  }

  @Override
  public void migrate() {
    delegate.migrate();
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public Optional<Lease> acquireLease(PollerKey key, String owner, Duration ttl, Instant now) {
    return delegate.acquireLease(key, owner, ttl, now);
  }

  @Override
  public Optional<Lease> renewLease(PollerKey key, Lease lease, Duration ttl, Instant now) {
    return delegate.renewLease(key, lease, ttl, now);
  }

  @Override
  public void releaseLease(PollerKey key, Lease lease) {
    delegate.releaseLease(key, lease);
  }

  @Override
  public Optional<Lease> getLease(PollerKey key) {
    return delegate.getLease(key);
  }

  @Override
  public Optional<PollerState> loadState(PollerKey key) {
    return delegate.loadState(key);
  }

  @Override
  public void saveState(PollerKey key, Lease lease, StatePatch patch, Instant now) {
    delegate.saveState(key, lease, patch, now);
  }

  @Override
  public void saveStateUnfenced(PollerKey key, StatePatch patch, Instant now) {
    delegate.saveStateUnfenced(key, patch, now);
  }

  @Override
  public List<PollerKey> listKeys(@Nullable String poller) {
    return delegate.listKeys(poller);
  }

  @Override
  public void deleteKey(PollerKey key) {
    delegate.deleteKey(key);
  }

  @Override
  public void clearItems(PollerKey key) {
    delegate.clearItems(key);
  }

  @Override
  public Map<String, ItemRow> loadVersions(PollerKey key, Collection<String> identities) {
    return delegate.loadVersions(key, identities);
  }

  @Override
  public Stream<List<String>> streamIdentities(PollerKey key, int batchSize) {
    return delegate.streamIdentities(key, batchSize);
  }

  @Override
  public long countItems(PollerKey key) {
    return delegate.countItems(key);
  }

  @Override
  public void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now) {
    delegate.commitPoll(key, lease, batch, now);
  }

  @Override
  public List<OutboxRow> loadPending(PollerKey key, long afterSequence, int limit) {
    return delegate.loadPending(key, afterSequence, limit);
  }

  @Override
  public long countPending(PollerKey key) {
    return delegate.countPending(key);
  }

  @Override
  public void ackEvents(PollerKey key, Lease lease, Collection<Long> sequences) {
    delegate.ackEvents(key, lease, sequences);
  }

  @Override
  public void recordAttempt(
      PollerKey key,
      Lease lease,
      long sequence,
      String errorJson,
      @Nullable Instant nextAttemptAt) {
    delegate.recordAttempt(key, lease, sequence, errorJson, nextAttemptAt);
  }

  @Override
  public void parkEvent(PollerKey key, Lease lease, ParkedRow row) {
    delegate.parkEvent(key, lease, row);
  }

  @Override
  public List<ParkedRow> listParked(PollerKey key, @Nullable ParkedKind kind, int limit) {
    return delegate.listParked(key, kind, limit);
  }

  @Override
  public long countParked(PollerKey key) {
    return delegate.countParked(key);
  }

  @Override
  public int retryParked(PollerKey key, Collection<String> ids) {
    return delegate.retryParked(key, ids);
  }

  @Override
  public int discardParked(PollerKey key, Collection<String> ids) {
    return delegate.discardParked(key, ids);
  }

  @Override
  public Set<String> heldKeys(PollerKey key) {
    return delegate.heldKeys(key);
  }

  @Override
  public Optional<HttpValidator> getValidator(PollerKey key, String urlHash) {
    return delegate.getValidator(key, urlHash);
  }

  @Override
  public void setValidator(PollerKey key, Lease lease, String urlHash, HttpValidator validator) {
    delegate.setValidator(key, lease, urlHash, validator);
  }

  @Override
  public List<LoggedEvent> readLog(PollerKey key, LogRange range, int limit) {
    return delegate.readLog(key, range, limit);
  }

  @Override
  public int pruneLog(PollerKey key, Instant olderThan) {
    return delegate.pruneLog(key, olderThan);
  }
}
