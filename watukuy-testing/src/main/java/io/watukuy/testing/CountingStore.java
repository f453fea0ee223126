package io.watukuy.testing;

import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.HttpValidator;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LeasedState;
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
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A {@link ForwardingStore} that counts the calls that reach its delegate, by method name: what the
 * engine asks of a store, for tests that bound it (docs/architecture.md, "What an idle poll
 * costs"). Every call counts once, whatever it does inside the delegate; {@code capabilities()} and
 * {@code close()}, which reach no database, are not counted. Unlike a plain {@link
 * ForwardingStore}, it forwards {@link StateStore#acquireLeaseAndLoad} and {@link
 * StateStore#saveStateAndRelease} to the delegate, so that a store's single round trip counts as
 * one call.
 *
 * <pre>{@code
 * CountingStore store = new CountingStore(new MemoryStore());
 * Watukuy w = Watukuy.builder().store(store)...build();
 * w.tick();
 * store.reset();
 * clock.advance(interval);
 * w.tick();                                   // an idle poll
 * assertThat(store.calls()).hasSizeLessThanOrEqualTo(2);
 * }</pre>
 *
 * <p>Thread-safe when the delegate is.
 *
 * @since 0.1
 */
public class CountingStore extends ForwardingStore {
  // Guarded by itself
  private final List<String> calls = new ArrayList<>();

  /**
   * A store that counts the calls it forwards to {@code delegate}.
   *
   * @param delegate the store that does the work
   * @throws NullPointerException if {@code delegate} is null
   */
  public CountingStore(StateStore delegate) {
    super(delegate);
  }

  /**
   * The method names of the calls since construction or the last {@link #reset()}, in order.
   *
   * @return a copy
   */
  public List<String> calls() {
    synchronized (calls) {
      return List.copyOf(calls);
    }
  }

  /**
   * How many calls of {@code method} there were since construction or the last {@link #reset()}.
   *
   * @param method a {@link StateStore} method name, such as {@code loadState}
   * @return the count
   */
  public long count(String method) {
    synchronized (calls) {
      return calls.stream().filter(method::equals).count();
    }
  }

  /** Forgets the calls counted so far. */
  public void reset() {
    synchronized (calls) {
      calls.clear();
    }
  }

  private void hit(String method) {
    synchronized (calls) {
      calls.add(method);
    }
  }

  @Override
  public Optional<LeasedState> acquireLeaseAndLoad(
      PollerKey key, String owner, Duration ttl, Instant now) {
    hit("acquireLeaseAndLoad");
    return delegate.acquireLeaseAndLoad(key, owner, ttl, now);
  }

  @Override
  public boolean saveStateAndRelease(
      PollerKey key, Lease lease, @Nullable ScheduleState expected, StatePatch patch, Instant now) {
    hit("saveStateAndRelease");
    return delegate.saveStateAndRelease(key, lease, expected, patch, now);
  }

  @Override
  public StoreCapabilities capabilities() {
    return delegate.capabilities();
  }

  @Override
  public void migrate() {
    hit("migrate");
    super.migrate();
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public Optional<Lease> acquireLease(PollerKey key, String owner, Duration ttl, Instant now) {
    hit("acquireLease");
    return super.acquireLease(key, owner, ttl, now);
  }

  @Override
  public Optional<Lease> renewLease(PollerKey key, Lease lease, Duration ttl, Instant now) {
    hit("renewLease");
    return super.renewLease(key, lease, ttl, now);
  }

  @Override
  public void releaseLease(PollerKey key, Lease lease) {
    hit("releaseLease");
    super.releaseLease(key, lease);
  }

  @Override
  public Optional<Lease> getLease(PollerKey key) {
    hit("getLease");
    return super.getLease(key);
  }

  @Override
  public Optional<PollerState> loadState(PollerKey key) {
    hit("loadState");
    return super.loadState(key);
  }

  @Override
  public void saveState(PollerKey key, Lease lease, StatePatch patch, Instant now) {
    hit("saveState");
    super.saveState(key, lease, patch, now);
  }

  @Override
  public void saveStateUnfenced(PollerKey key, StatePatch patch, Instant now) {
    hit("saveStateUnfenced");
    super.saveStateUnfenced(key, patch, now);
  }

  @Override
  public List<PollerKey> listKeys(@Nullable String poller) {
    hit("listKeys");
    return super.listKeys(poller);
  }

  @Override
  public void deleteKey(PollerKey key) {
    hit("deleteKey");
    super.deleteKey(key);
  }

  @Override
  public void clearItems(PollerKey key) {
    hit("clearItems");
    super.clearItems(key);
  }

  @Override
  public Map<String, ItemRow> loadVersions(PollerKey key, Collection<String> identities) {
    hit("loadVersions");
    return super.loadVersions(key, identities);
  }

  @Override
  public Stream<List<String>> streamIdentities(PollerKey key, int batchSize) {
    hit("streamIdentities");
    return super.streamIdentities(key, batchSize);
  }

  @Override
  public long countItems(PollerKey key) {
    hit("countItems");
    return super.countItems(key);
  }

  @Override
  public void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now) {
    hit("commitPoll");
    super.commitPoll(key, lease, batch, now);
  }

  @Override
  public List<OutboxRow> loadPending(PollerKey key, long afterSequence, int limit) {
    hit("loadPending");
    return super.loadPending(key, afterSequence, limit);
  }

  @Override
  public long countPending(PollerKey key) {
    hit("countPending");
    return super.countPending(key);
  }

  @Override
  public void ackEvents(PollerKey key, Lease lease, Collection<Long> sequences) {
    hit("ackEvents");
    super.ackEvents(key, lease, sequences);
  }

  @Override
  public void recordAttempt(
      PollerKey key,
      Lease lease,
      long sequence,
      String errorJson,
      @Nullable Instant nextAttemptAt) {
    hit("recordAttempt");
    super.recordAttempt(key, lease, sequence, errorJson, nextAttemptAt);
  }

  @Override
  public void parkEvent(PollerKey key, Lease lease, ParkedRow row) {
    hit("parkEvent");
    super.parkEvent(key, lease, row);
  }

  @Override
  public List<ParkedRow> listParked(PollerKey key, @Nullable ParkedKind kind, int limit) {
    hit("listParked");
    return super.listParked(key, kind, limit);
  }

  @Override
  public long countParked(PollerKey key) {
    hit("countParked");
    return super.countParked(key);
  }

  @Override
  public int retryParked(PollerKey key, Collection<String> ids) {
    hit("retryParked");
    return super.retryParked(key, ids);
  }

  @Override
  public int discardParked(PollerKey key, Collection<String> ids) {
    hit("discardParked");
    return super.discardParked(key, ids);
  }

  @Override
  public Set<String> heldKeys(PollerKey key) {
    hit("heldKeys");
    return super.heldKeys(key);
  }

  @Override
  public Optional<HttpValidator> getValidator(PollerKey key, String urlHash) {
    hit("getValidator");
    return super.getValidator(key, urlHash);
  }

  @Override
  public void setValidator(PollerKey key, Lease lease, String urlHash, HttpValidator validator) {
    hit("setValidator");
    super.setValidator(key, lease, urlHash, validator);
  }

  @Override
  public List<LoggedEvent> readLog(PollerKey key, LogRange range, int limit) {
    hit("readLog");
    return super.readLog(key, range, limit);
  }

  @Override
  public int pruneLog(PollerKey key, Instant olderThan) {
    hit("pruneLog");
    return super.pruneLog(key, olderThan);
  }
}
