package io.watukuy.store.jdbc;

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
import org.jspecify.annotations.Nullable;

/**
 * A JDBC store's effect tables as one {@link EffectStore} (docs/stores.md, "EffectStore"): the
 * tables {@link StoreTable#EFFECTS}, {@link StoreTable#EFFECT_CURSORS}, {@link
 * StoreTable#INVOCATIONS}, {@link StoreTable#JOURNAL} and {@link StoreTable#SUBJECTS}, each kept by
 * its own class. Fenced writes lock the effect's row (not a key's) and compare its lease; a journal
 * append is one insert-if-absent in auto-commit ({@link SqlDialect#insertIfAbsent}). Every call
 * that names a source key first hands it to the store's {@link KeyCheck}, so a key the database
 * cannot hold is refused with the store's message before anything is written.
 */
final class JdbcEffectStore implements EffectStore {

  /** A store's check of a key before an operation names it (see {@code JdbcStore#key}). */
  @FunctionalInterface
  interface KeyCheck {
    /** No check: the engine's own. */
    KeyCheck NONE = (operation, key) -> key;

    /**
     * Checks {@code key}.
     *
     * @param operation the {@link EffectStore} method's name, for the message
     * @param key the key
     * @return {@code key}
     */
    PollerKey check(String operation, PollerKey key);
  }

  private final Effects effects;
  private final EffectCursors cursors;
  private final Invocations invocations;
  private final Journal journal;
  private final SubjectKeys subjectKeys;
  private final KeyCheck keys;

  private JdbcEffectStore(
      Effects effects,
      EffectCursors cursors,
      Invocations invocations,
      Journal journal,
      SubjectKeys subjectKeys,
      KeyCheck keys) {
    this.effects = effects;
    this.cursors = cursors;
    this.invocations = invocations;
    this.journal = journal;
    this.subjectKeys = subjectKeys;
    this.keys = keys;
  }

  /** The effect tables over {@code tables}, checking no key. Performs no I/O. */
  static JdbcEffectStore over(EffectTables tables) {
    EffectCursors cursors = new EffectCursors(tables);
    return new JdbcEffectStore(
        new Effects(tables),
        cursors,
        new Invocations(tables, cursors),
        new Journal(tables),
        new SubjectKeys(tables),
        KeyCheck.NONE);
  }

  /** The same tables, with every source key handed to {@code check} first. */
  JdbcEffectStore checkingKeys(KeyCheck check) {
    return new JdbcEffectStore(effects, cursors, invocations, journal, subjectKeys, check);
  }

  /**
   * {@inheritDoc} Makes sure the effect's row exists, then reads and takes it under its row lock in
   * one transaction.
   */
  @Override
  public Optional<Lease> acquireEffectLease(
      String effect, String owner, Duration ttl, Instant now) {
    return effects.acquire(effect, owner, ttl, now);
  }

  /** {@inheritDoc} One {@code UPDATE ... WHERE lease_owner = ? AND lease_epoch = ?}. */
  @Override
  public Optional<Lease> renewEffectLease(String effect, Lease lease, Duration ttl, Instant now) {
    return effects.renew(effect, lease, ttl, now);
  }

  @Override
  public void releaseEffectLease(String effect, Lease lease) {
    effects.release(effect, lease);
  }

  @Override
  public Optional<Lease> effectLease(String effect) {
    return effects.get(effect);
  }

  /** {@inheritDoc} Sorted in Java ({@link String#compareTo}), whatever the column's collation. */
  @Override
  public List<String> listEffects() {
    return effects.list();
  }

  @Override
  public Optional<EffectRecord> loadEffect(String effect) {
    return effects.load(effect);
  }

  @Override
  public void setQuarantine(String effect, @Nullable String reason, Instant now) {
    effects.setQuarantine(effect, reason, now);
  }

  /** {@inheritDoc} One {@code UPDATE} that adds to the stored values. */
  @Override
  public void addCounts(
      String effect,
      long terminalSkips,
      @Nullable String lastTerminalError,
      long latestCollapsed,
      Instant now) {
    effects.addCounts(effect, terminalSkips, lastTerminalError, latestCollapsed, now);
  }

  @Override
  public List<EffectCursor> loadCursors(String effect) {
    return cursors.load(effect);
  }

  /**
   * {@inheritDoc} One fenced transaction: the effect's row locked and its lease compared, then an
   * upsert.
   */
  @Override
  public void saveCursor(EffectCursor cursor, Lease lease) {
    keys.check("saveCursor", cursor.source());
    cursors.save(cursor, lease);
  }

  @Override
  public OptionalLong lowestWatermark(PollerKey source) {
    return cursors.lowestWatermark(keys.check("lowestWatermark", source));
  }

  /**
   * {@inheritDoc} One fenced transaction: an {@code UPDATE} that keeps a stored skip request, or an
   * {@code INSERT}.
   */
  @Override
  public void saveInvocation(InvocationRow row, Lease lease) {
    keys.check("saveInvocation", row.source());
    invocations.save(row, lease);
  }

  @Override
  public Optional<InvocationRow> loadInvocation(String effect, PollerKey source, long position) {
    return invocations.load(effect, keys.check("loadInvocation", source), position);
  }

  @Override
  public List<InvocationRow> listInvocations(
      String effect,
      PollerKey source,
      long afterPosition,
      Set<InvocationStatus> statuses,
      int limit) {
    PollerKey key = keys.check("listInvocations", source);
    return invocations.list(effect, key, afterPosition, statuses, limit);
  }

  @Override
  public long countInvocations(String effect, PollerKey source, long afterPosition) {
    return invocations.count(effect, keys.check("countInvocations", source), afterPosition);
  }

  /** {@inheritDoc} One {@code UPDATE ... WHERE status = 'FAILED'}. */
  @Override
  public boolean requestSkip(String effect, PollerKey source, long position, Instant now) {
    return invocations.requestSkip(effect, keys.check("requestSkip", source), position, now);
  }

  @Override
  public Optional<JournalEntry> loadJournalEntry(
      String effect, PollerKey source, long position, String callKey) {
    return journal.load(effect, keys.check("loadJournalEntry", source), position, callKey);
  }

  /**
   * {@inheritDoc} One insert-if-absent statement in auto-commit ({@link
   * SqlDialect#insertIfAbsent}).
   */
  @Override
  public boolean appendJournalEntry(JournalEntry entry) {
    keys.check("appendJournalEntry", entry.source());
    return journal.append(entry);
  }

  @Override
  public List<JournalEntry> listJournal(
      String effect, PollerKey source, long position, int offset, int limit) {
    return journal.list(effect, keys.check("listJournal", source), position, offset, limit);
  }

  /** {@inheritDoc} One fenced transaction. */
  @Override
  public long rewind(
      String effect,
      PollerKey source,
      long position,
      boolean lowerLiveBoundary,
      Lease lease,
      Instant now) {
    PollerKey key = keys.check("rewind", source);
    return invocations.rewind(effect, key, position, lowerLiveBoundary, lease, now);
  }

  /** {@inheritDoc} One transaction. */
  @Override
  public int sweepInvocations(String effect, PollerKey source, Instant completedBefore, int limit) {
    PollerKey key = keys.check("sweepInvocations", source);
    return invocations.sweep(effect, key, completedBefore, limit);
  }

  /**
   * {@inheritDoc} One transaction: the effect's row locked and cleared (its epoch counter stays),
   * then its journal, invocation and cursor rows deleted.
   */
  @Override
  public boolean forgetEffect(String effect) {
    return effects.forget(effect);
  }

  @Override
  public Optional<SubjectKey> loadSubjectKey(String subject) {
    return subjectKeys.load(subject);
  }

  @Override
  public SubjectKey putSubjectKeyIfAbsent(SubjectKey candidate) {
    return subjectKeys.putIfAbsent(candidate);
  }

  @Override
  public boolean eraseSubject(String subject) {
    return subjectKeys.erase(subject);
  }
}
