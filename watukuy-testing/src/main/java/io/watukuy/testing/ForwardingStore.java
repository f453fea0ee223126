package io.watukuy.testing;

import io.watukuy.PollerKey;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.CredentialStore;
import io.watukuy.spi.EffectStore;
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
import io.watukuy.spi.StoredCredential;
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
 * <p>To observe or fail every call alike, override {@link #beforeCall} only.
 *
 * <p>The two calls that combine others, {@link StateStore#acquireLeaseAndLoad} and {@link
 * StateStore#saveStateAndRelease}, are not forwarded: they run the {@link StateStore} defaults over
 * this class's own methods, so that a subclass overriding {@code acquireLease}, {@code loadState},
 * {@code saveState} or {@code releaseLease} still sees every lease and state call the engine makes.
 * A subclass that wants the delegate's single round trip overrides them to forward ({@link
 * CountingStore} does).
 *
 * <p>It is also a {@link CredentialStore} that forwards to the delegate's credentials table, so a
 * wrapped store stays one ({@code store instanceof CredentialStore} holds through a wrapper, as the
 * engine and the CLI test it); the credential calls reach {@link #beforeCall} too, by their {@link
 * CredentialStore} names. Over a delegate that is not a {@link CredentialStore} (every built-in
 * store is one), they throw {@link UnsupportedOperationException}. Its {@link #effects()} are the
 * delegate's, and the effect calls reach {@link #beforeCall} by their {@link EffectStore} names.
 *
 * @since 0.1
 */
public class ForwardingStore implements StateStore, CredentialStore {
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

  /**
   * Called on the caller's thread before each call this class forwards, with the {@link StateStore}
   * method's name ({@code "commitPoll"}): the one place a subclass observes or fails every call,
   * instead of overriding each. Not called for {@code capabilities()} and {@code close()}, which
   * reach no database, nor for the combined calls (see above), whose parts call it once each. An
   * exception it throws is the call's, and the delegate is not called. Does nothing by default.
   *
   * @param method the name of the {@link StateStore} method about to be forwarded
   * @since 0.2
   */
  protected void beforeCall(String method) {}

  @Override
  public StoreCapabilities capabilities() {
    return delegate.capabilities();
  }

  @Override
  public void migrate() {
    beforeCall("migrate");
    delegate.migrate();
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public Optional<Lease> acquireLease(PollerKey key, String owner, Duration ttl, Instant now) {
    beforeCall("acquireLease");
    return delegate.acquireLease(key, owner, ttl, now);
  }

  @Override
  public Optional<Lease> renewLease(PollerKey key, Lease lease, Duration ttl, Instant now) {
    beforeCall("renewLease");
    return delegate.renewLease(key, lease, ttl, now);
  }

  @Override
  public void releaseLease(PollerKey key, Lease lease) {
    beforeCall("releaseLease");
    delegate.releaseLease(key, lease);
  }

  @Override
  public Optional<Lease> getLease(PollerKey key) {
    beforeCall("getLease");
    return delegate.getLease(key);
  }

  @Override
  public Optional<PollerState> loadState(PollerKey key) {
    beforeCall("loadState");
    return delegate.loadState(key);
  }

  @Override
  public void saveState(PollerKey key, Lease lease, StatePatch patch, Instant now) {
    beforeCall("saveState");
    delegate.saveState(key, lease, patch, now);
  }

  @Override
  public void saveStateUnfenced(PollerKey key, StatePatch patch, Instant now) {
    beforeCall("saveStateUnfenced");
    delegate.saveStateUnfenced(key, patch, now);
  }

  @Override
  public List<PollerKey> listKeys(@Nullable String poller) {
    beforeCall("listKeys");
    return delegate.listKeys(poller);
  }

  @Override
  public void deleteKey(PollerKey key) {
    beforeCall("deleteKey");
    delegate.deleteKey(key);
  }

  @Override
  public void clearItems(PollerKey key) {
    beforeCall("clearItems");
    delegate.clearItems(key);
  }

  @Override
  public Map<String, ItemRow> loadVersions(PollerKey key, Collection<String> identities) {
    beforeCall("loadVersions");
    return delegate.loadVersions(key, identities);
  }

  @Override
  public Stream<List<String>> streamIdentities(PollerKey key, int batchSize) {
    beforeCall("streamIdentities");
    return delegate.streamIdentities(key, batchSize);
  }

  @Override
  public long countItems(PollerKey key) {
    beforeCall("countItems");
    return delegate.countItems(key);
  }

  @Override
  public void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now) {
    beforeCall("commitPoll");
    delegate.commitPoll(key, lease, batch, now);
  }

  @Override
  public List<OutboxRow> loadPending(PollerKey key, long afterSequence, int limit) {
    beforeCall("loadPending");
    return delegate.loadPending(key, afterSequence, limit);
  }

  @Override
  public long countPending(PollerKey key) {
    beforeCall("countPending");
    return delegate.countPending(key);
  }

  @Override
  public void ackEvents(PollerKey key, Lease lease, Collection<Long> sequences) {
    beforeCall("ackEvents");
    delegate.ackEvents(key, lease, sequences);
  }

  @Override
  public void recordAttempt(
      PollerKey key,
      Lease lease,
      long sequence,
      String errorJson,
      @Nullable Instant nextAttemptAt) {
    beforeCall("recordAttempt");
    delegate.recordAttempt(key, lease, sequence, errorJson, nextAttemptAt);
  }

  @Override
  public void parkEvent(PollerKey key, Lease lease, ParkedRow row) {
    beforeCall("parkEvent");
    delegate.parkEvent(key, lease, row);
  }

  @Override
  public List<ParkedRow> listParked(PollerKey key, @Nullable ParkedKind kind, int limit) {
    beforeCall("listParked");
    return delegate.listParked(key, kind, limit);
  }

  @Override
  public long countParked(PollerKey key) {
    beforeCall("countParked");
    return delegate.countParked(key);
  }

  @Override
  public int retryParked(PollerKey key, Collection<String> ids) {
    beforeCall("retryParked");
    return delegate.retryParked(key, ids);
  }

  @Override
  public int discardParked(PollerKey key, Collection<String> ids) {
    beforeCall("discardParked");
    return delegate.discardParked(key, ids);
  }

  @Override
  public Set<String> heldKeys(PollerKey key) {
    beforeCall("heldKeys");
    return delegate.heldKeys(key);
  }

  @Override
  public Optional<HttpValidator> getValidator(PollerKey key, String urlHash) {
    beforeCall("getValidator");
    return delegate.getValidator(key, urlHash);
  }

  @Override
  public void setValidator(PollerKey key, Lease lease, String urlHash, HttpValidator validator) {
    beforeCall("setValidator");
    delegate.setValidator(key, lease, urlHash, validator);
  }

  @Override
  public List<LoggedEvent> readLog(PollerKey key, LogRange range, int limit) {
    beforeCall("readLog");
    return delegate.readLog(key, range, limit);
  }

  @Override
  public int pruneLog(PollerKey key, Instant olderThan) {
    beforeCall("pruneLog");
    return delegate.pruneLog(key, olderThan);
  }

  // ---- credentials

  /**
   * The delegate as a credential store.
   *
   * @param method the {@link CredentialStore} method about to be forwarded, for the message
   * @return the delegate
   * @throws UnsupportedOperationException when the delegate keeps no credentials
   */
  private CredentialStore credentialDelegate(String method) {
    if (delegate instanceof CredentialStore credentials) {
      return credentials;
    }
    throw new UnsupportedOperationException(
        method + ": the wrapped store " + delegate + " is not a CredentialStore");
  }

  @Override
  public Optional<StoredCredential> loadCredential(String name) {
    beforeCall("loadCredential");
    return credentialDelegate("loadCredential").loadCredential(name);
  }

  @Override
  public boolean compareAndSetCredential(long expectedVersion, StoredCredential next) {
    beforeCall("compareAndSetCredential");
    return credentialDelegate("compareAndSetCredential")
        .compareAndSetCredential(expectedVersion, next);
  }

  @Override
  public boolean deleteCredential(String name) {
    beforeCall("deleteCredential");
    return credentialDelegate("deleteCredential").deleteCredential(name);
  }

  @Override
  public List<String> listCredentials() {
    beforeCall("listCredentials");
    return credentialDelegate("listCredentials").listCredentials();
  }

  // ---- effects

  /**
   * {@inheritDoc} The delegate's effect tables, forwarded so that each effect call first reaches
   * {@link #beforeCall} by its {@link EffectStore} name ({@code "saveCursor"}); empty when the
   * delegate keeps none.
   */
  @Override
  public Optional<EffectStore> effects() {
    return delegate.effects().map(effects -> new ForwardingEffects(effects, this::beforeCall));
  }
}
