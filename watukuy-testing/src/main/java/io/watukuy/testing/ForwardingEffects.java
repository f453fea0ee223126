package io.watukuy.testing;

import io.watukuy.PollerKey;
import io.watukuy.spi.EffectCursor;
import io.watukuy.spi.EffectRecord;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.JournalEntry;
import io.watukuy.spi.Lease;
import io.watukuy.spi.SubjectKey;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * {@link ForwardingStore#effects()}: every call handed to the delegate's effect tables after the
 * store's {@code beforeCall} hook has seen its {@link EffectStore} method name, so a fault or count
 * injected there covers effect calls too. An exception the hook throws is the call's, and the
 * delegate is not called.
 */
final class ForwardingEffects implements EffectStore {
  private final EffectStore delegate;
  private final Consumer<String> beforeCall;

  ForwardingEffects(EffectStore delegate, Consumer<String> beforeCall) {
    this.delegate = delegate;
    this.beforeCall = beforeCall;
  }

  @Override
  public Optional<Lease> acquireEffectLease(
      String effect, String owner, Duration ttl, Instant now) {
    beforeCall.accept("acquireEffectLease");
    return delegate.acquireEffectLease(effect, owner, ttl, now);
  }

  @Override
  public Optional<Lease> renewEffectLease(String effect, Lease lease, Duration ttl, Instant now) {
    beforeCall.accept("renewEffectLease");
    return delegate.renewEffectLease(effect, lease, ttl, now);
  }

  @Override
  public void releaseEffectLease(String effect, Lease lease) {
    beforeCall.accept("releaseEffectLease");
    delegate.releaseEffectLease(effect, lease);
  }

  @Override
  public Optional<Lease> effectLease(String effect) {
    beforeCall.accept("effectLease");
    return delegate.effectLease(effect);
  }

  @Override
  public List<String> listEffects() {
    beforeCall.accept("listEffects");
    return delegate.listEffects();
  }

  @Override
  public Optional<EffectRecord> loadEffect(String effect) {
    beforeCall.accept("loadEffect");
    return delegate.loadEffect(effect);
  }

  @Override
  public void setQuarantine(String effect, @Nullable String reason, Instant now) {
    beforeCall.accept("setQuarantine");
    delegate.setQuarantine(effect, reason, now);
  }

  @Override
  public void addCounts(
      String effect,
      long terminalSkips,
      @Nullable String lastTerminalError,
      long latestCollapsed,
      Instant now) {
    beforeCall.accept("addCounts");
    delegate.addCounts(effect, terminalSkips, lastTerminalError, latestCollapsed, now);
  }

  @Override
  public List<EffectCursor> loadCursors(String effect) {
    beforeCall.accept("loadCursors");
    return delegate.loadCursors(effect);
  }

  @Override
  public void saveCursor(EffectCursor cursor, Lease lease) {
    beforeCall.accept("saveCursor");
    delegate.saveCursor(cursor, lease);
  }

  @Override
  public OptionalLong lowestWatermark(PollerKey source) {
    beforeCall.accept("lowestWatermark");
    return delegate.lowestWatermark(source);
  }

  @Override
  public void saveInvocation(InvocationRow row, Lease lease) {
    beforeCall.accept("saveInvocation");
    delegate.saveInvocation(row, lease);
  }

  @Override
  public Optional<InvocationRow> loadInvocation(String effect, PollerKey source, long position) {
    beforeCall.accept("loadInvocation");
    return delegate.loadInvocation(effect, source, position);
  }

  @Override
  public List<InvocationRow> listInvocations(
      String effect,
      PollerKey source,
      long afterPosition,
      Set<InvocationStatus> statuses,
      int limit) {
    beforeCall.accept("listInvocations");
    return delegate.listInvocations(effect, source, afterPosition, statuses, limit);
  }

  @Override
  public long countInvocations(String effect, PollerKey source, long afterPosition) {
    beforeCall.accept("countInvocations");
    return delegate.countInvocations(effect, source, afterPosition);
  }

  @Override
  public boolean requestSkip(String effect, PollerKey source, long position, Instant now) {
    beforeCall.accept("requestSkip");
    return delegate.requestSkip(effect, source, position, now);
  }

  @Override
  public Optional<JournalEntry> loadJournalEntry(
      String effect, PollerKey source, long position, String callKey) {
    beforeCall.accept("loadJournalEntry");
    return delegate.loadJournalEntry(effect, source, position, callKey);
  }

  @Override
  public boolean appendJournalEntry(JournalEntry entry) {
    beforeCall.accept("appendJournalEntry");
    return delegate.appendJournalEntry(entry);
  }

  @Override
  public List<JournalEntry> listJournal(
      String effect, PollerKey source, long position, int offset, int limit) {
    beforeCall.accept("listJournal");
    return delegate.listJournal(effect, source, position, offset, limit);
  }

  @Override
  public long rewind(
      String effect,
      PollerKey source,
      long position,
      boolean lowerLiveBoundary,
      Lease lease,
      Instant now) {
    beforeCall.accept("rewind");
    return delegate.rewind(effect, source, position, lowerLiveBoundary, lease, now);
  }

  @Override
  public int sweepInvocations(String effect, PollerKey source, Instant completedBefore, int limit) {
    beforeCall.accept("sweepInvocations");
    return delegate.sweepInvocations(effect, source, completedBefore, limit);
  }

  @Override
  public boolean forgetEffect(String effect) {
    beforeCall.accept("forgetEffect");
    return delegate.forgetEffect(effect);
  }

  @Override
  public Optional<SubjectKey> loadSubjectKey(String subject) {
    beforeCall.accept("loadSubjectKey");
    return delegate.loadSubjectKey(subject);
  }

  @Override
  public SubjectKey putSubjectKeyIfAbsent(SubjectKey candidate) {
    beforeCall.accept("putSubjectKeyIfAbsent");
    return delegate.putSubjectKeyIfAbsent(candidate);
  }

  @Override
  public boolean eraseSubject(String subject) {
    beforeCall.accept("eraseSubject");
    return delegate.eraseSubject(subject);
  }
}
