package io.watukuy.spi;

import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The tables of effects (docs/effects.md; docs/stores.md, "EffectStore"): each effect's cursor per
 * source key, its invocations and their journal of calls, its quarantine and counters, a lease so
 * one engine runs an effect at a time, and the subjects' data keys for sealed documents. It is
 * obtained from {@link StateStore#effects()}: every store module's {@link StateStore} returns one,
 * kept in the same database as the event log the effects read.
 *
 * <p>Writes that move an effect (cursor, invocation rows, rewind) are fenced by the effect's lease:
 * one made under a lease whose epoch is no longer the stored one throws {@link LeaseLostException}
 * and changes nothing. Journal appends are not fenced: a call that was made is worth recording
 * whoever made it, and an append never replaces an entry. Each method commits on its own (never one
 * transaction across calls), so a crash between two journal appends keeps the first. Instants are
 * kept to the millisecond. Implementations are thread-safe. {@code EffectStoreContractTest} in
 * watukuy-testing certifies an implementation.
 *
 * @since 0.1
 */
public interface EffectStore {

  /**
   * The exception a fenced write throws under a lease that is no longer the effect's: its {@link
   * LeaseLostException#key()} is {@code PollerKey.of("effect " + effect)}, so the message reads
   * "lease lost for effect NAME: …". Every implementation throws this one, so callers and logs see
   * the same text whatever the store.
   *
   * @param effect the effect's name
   * @param heldEpoch the epoch the writer presented
   * @param currentEpoch the stored epoch, or {@code null} when the effect has no lease
   * @return the exception, to be thrown
   */
  static LeaseLostException effectLeaseLost(
      String effect, long heldEpoch, @Nullable Long currentEpoch) {
    return new LeaseLostException(PollerKey.of("effect " + effect), heldEpoch, currentEpoch);
  }

  /**
   * Refuses negative counts to {@link #addCounts}, with the message every implementation gives, so
   * callers see the same text whatever the store.
   *
   * @param effect the effect's name, named in the message
   * @param terminalSkips the terminal skips to add
   * @param latestCollapsed the collapsed events to add
   * @throws IllegalArgumentException naming the effect and both counts when either is negative
   */
  static void checkCounts(String effect, long terminalSkips, long latestCollapsed) {
    if (terminalSkips < 0 || latestCollapsed < 0) {
      throw new IllegalArgumentException(
          "counts for effect "
              + effect
              + " must be >= 0: terminalSkips "
              + terminalSkips
              + ", latestCollapsed "
              + latestCollapsed);
    }
  }

  // ---- lease -------------------------------------------------------------------------------

  /**
   * Takes the effect's lease when it is free, expired or already {@code owner}'s.
   *
   * @param effect the effect's name
   * @param owner the taker's instance id
   * @param ttl how long the lease lasts; positive
   * @param now the current time
   * @return the lease, expiring at {@code now + ttl}: the stored epoch when the stored lease is
   *     {@code owner}'s (expired or not), otherwise a higher epoch than any issued before for the
   *     effect (after a release too); or empty when another owner holds an unexpired lease
   * @throws IllegalArgumentException if {@code ttl} is not positive
   * @throws StoreException when the store cannot be reached
   */
  Optional<Lease> acquireEffectLease(String effect, String owner, Duration ttl, Instant now);

  /**
   * Extends a held lease.
   *
   * @param effect the effect's name
   * @param lease the lease held
   * @param ttl the new time to live from {@code now}
   * @param now the current time
   * @return the extended lease, or empty when the stored epoch is another (the lease was lost)
   * @throws StoreException when the store cannot be reached
   */
  Optional<Lease> renewEffectLease(String effect, Lease lease, Duration ttl, Instant now);

  /**
   * Gives the lease up if its epoch is still the stored one; otherwise does nothing.
   *
   * @param effect the effect's name
   * @param lease the lease held
   * @throws StoreException when the store cannot be reached
   */
  void releaseEffectLease(String effect, Lease lease);

  /**
   * The stored lease, expired or not (a caller compares {@link Lease#expiresAt()} with its clock).
   *
   * @param effect the effect's name
   * @return the lease row, or empty when none was ever taken or it was released
   * @throws StoreException when the store cannot be reached
   */
  Optional<Lease> effectLease(String effect);

  // ---- effect-wide state --------------------------------------------------------------------

  /**
   * The effects the store knows: each with a record, a cursor or a lease row.
   *
   * @return the names in ascending {@link String#compareTo} order, unmodifiable
   * @throws StoreException when the store cannot be reached
   */
  List<String> listEffects();

  /**
   * Reads an effect's quarantine and counters.
   *
   * @param effect the effect's name
   * @return the record, or empty when neither quarantined nor counted yet
   * @throws StoreException when the store cannot be reached
   */
  Optional<EffectRecord> loadEffect(String effect);

  /**
   * Quarantines an effect, or releases it (not fenced: an operator's command).
   *
   * @param effect the effect's name
   * @param reason why, or {@code null} to release; a quarantine already in place keeps its time and
   *     reason
   * @param now the current time
   * @throws StoreException when the store cannot be reached
   */
  void setQuarantine(String effect, @Nullable String reason, Instant now);

  /**
   * Adds to an effect's counters atomically.
   *
   * @param effect the effect's name
   * @param terminalSkips positions completed by a terminal failure; {@code >= 0}
   * @param lastTerminalError the last such failure's message, or {@code null} to keep the stored
   *     one
   * @param latestCollapsed events folded by an {@code on latest} arm; {@code >= 0}
   * @param now the current time
   * @throws IllegalArgumentException if a count is negative
   * @throws StoreException when the store cannot be reached
   */
  void addCounts(
      String effect,
      long terminalSkips,
      @Nullable String lastTerminalError,
      long latestCollapsed,
      Instant now);

  // ---- cursors ------------------------------------------------------------------------------

  /**
   * Reads the effect's cursor on every source key it has read.
   *
   * @param effect the effect's name
   * @return the cursors, sorted by source key, unmodifiable
   * @throws StoreException when the store cannot be reached
   */
  List<EffectCursor> loadCursors(String effect);

  /**
   * Writes one cursor, replacing the stored one for its {@code (effect, source)}.
   *
   * @param cursor the cursor
   * @param lease the effect's lease
   * @throws LeaseLostException if {@code lease}'s epoch is not the stored one
   * @throws StoreException when the store cannot be reached
   */
  void saveCursor(EffectCursor cursor, Lease lease);

  /**
   * The lowest watermark of every effect reading {@code source}: the log must keep every event
   * above it (docs/effects.md, "Retention").
   *
   * @param source a poller key
   * @return the lowest watermark, or empty when no effect has a cursor on {@code source}
   * @throws StoreException when the store cannot be reached
   */
  OptionalLong lowestWatermark(PollerKey source);

  // ---- invocations ----------------------------------------------------------------------------

  /**
   * Writes an invocation row, replacing the stored one for its {@code (effect, source, position)};
   * a stored {@link InvocationRow#skipRequested()} stays set (an operator's request is never lost
   * to a concurrent write).
   *
   * @param row the row
   * @param lease the effect's lease
   * @throws LeaseLostException if {@code lease}'s epoch is not the stored one
   * @throws StoreException when the store cannot be reached
   */
  void saveInvocation(InvocationRow row, Lease lease);

  /**
   * Reads one invocation row.
   *
   * @param effect the effect's name
   * @param source the source key
   * @param position the log position
   * @return the row, or empty
   * @throws StoreException when the store cannot be reached
   */
  Optional<InvocationRow> loadInvocation(String effect, PollerKey source, long position);

  /**
   * Lists invocation rows above a position, in ascending position order.
   *
   * @param effect the effect's name
   * @param source the source key
   * @param afterPosition only rows with a greater position
   * @param statuses only rows in one of these statuses; empty for every status
   * @param limit at most this many; positive
   * @return the rows, unmodifiable
   * @throws IllegalArgumentException if {@code limit} is not positive
   * @throws StoreException when the store cannot be reached
   */
  List<InvocationRow> listInvocations(
      String effect,
      PollerKey source,
      long afterPosition,
      Set<InvocationStatus> statuses,
      int limit);

  /**
   * Counts the invocation rows above a position (what a rewind would discard).
   *
   * @param effect the effect's name
   * @param source the source key
   * @param afterPosition only rows with a greater position
   * @return the count
   * @throws StoreException when the store cannot be reached
   */
  long countInvocations(String effect, PollerKey source, long afterPosition);

  /**
   * Records an operator's request to skip a failed position (not fenced).
   *
   * @param effect the effect's name
   * @param source the source key
   * @param position the log position
   * @param now the current time
   * @return true when the row exists and is {@link InvocationStatus#FAILED} (its {@code
   *     skipRequested} is then set and its {@code updatedAt} is {@code now}); false (and nothing
   *     written) otherwise — a position that has not failed is never skipped
   * @throws StoreException when the store cannot be reached
   */
  boolean requestSkip(String effect, PollerKey source, long position, Instant now);

  // ---- journal ----------------------------------------------------------------------------------

  /**
   * Looks a call up in an invocation's journal.
   *
   * @param effect the effect's name
   * @param source the source key
   * @param position the invocation's position
   * @param callKey the call's key (64 hex digits)
   * @return the entry, or empty when the call was never recorded
   * @throws StoreException when the store cannot be reached
   */
  Optional<JournalEntry> loadJournalEntry(
      String effect, PollerKey source, long position, String callKey);

  /**
   * Records a call's result unless an entry with the same {@code (effect, source, position,
   * callKey)} exists; commits at once.
   *
   * @param entry the entry
   * @return true when written; false when one existed (it is kept as it was)
   * @throws StoreException when the store cannot be reached; whether it was written is then
   *     unknown, and a replay looks it up again
   */
  boolean appendJournalEntry(JournalEntry entry);

  /**
   * Lists an invocation's journal in {@link JournalEntry#ordinal()} order.
   *
   * @param effect the effect's name
   * @param source the source key
   * @param position the invocation's position
   * @param offset entries to pass over; {@code >= 0}
   * @param limit at most this many; positive
   * @return the entries, unmodifiable
   * @throws IllegalArgumentException if {@code offset} is negative or {@code limit} is not positive
   * @throws StoreException when the store cannot be reached
   */
  List<JournalEntry> listJournal(
      String effect, PollerKey source, long position, int offset, int limit);

  // ---- maintenance ------------------------------------------------------------------------------

  /**
   * Moves an effect back on one source key: deletes every invocation row above {@code position} and
   * its journal, and sets the watermark to {@code position} with no scheme recorded
   * (docs/effects.md, "Rewind").
   *
   * @param effect the effect's name
   * @param source the source key
   * @param position the new watermark; {@code >= 0}
   * @param lowerLiveBoundary also lower the {@code on live} boundary to {@code position} (a
   *     boundary already at or below it stays; one not yet set becomes {@code position}); otherwise
   *     the boundary stays as stored
   * @param lease the effect's lease (a rewind holds it so no engine runs the effect meanwhile)
   * @param now the current time
   * @return the invocation rows deleted
   * @throws IllegalArgumentException if {@code position} is negative
   * @throws LeaseLostException if {@code lease}'s epoch is not the stored one
   * @throws StoreException when the store cannot be reached
   */
  long rewind(
      String effect,
      PollerKey source,
      long position,
      boolean lowerLiveBoundary,
      Lease lease,
      Instant now);

  /**
   * Deletes completed invocations (and their journals) last updated before {@code completedBefore}
   * and at or below the effect's stored watermark on {@code source}; nothing when the effect has no
   * cursor there (docs/effects.md, "Retention").
   *
   * @param effect the effect's name
   * @param source the source key
   * @param completedBefore the age bound
   * @param limit at most this many invocations per call; positive
   * @return the invocation rows deleted
   * @throws IllegalArgumentException if {@code limit} is not positive
   * @throws StoreException when the store cannot be reached
   */
  int sweepInvocations(String effect, PollerKey source, Instant completedBefore, int limit);

  /**
   * Forgets an effect (docs/effects.md, "Forget"): deletes its cursor on every source key, with its
   * invocation rows and their journal there, its quarantine and counters, and its lease. It then no
   * longer holds any source's event log ({@link #lowestWatermark}, {@link StateStore#pruneLog}),
   * and {@link #listEffects} no longer names it. For an effect no configuration declares any more,
   * whose cursor would otherwise keep every log it read from being pruned, for good.
   *
   * <p>Not fenced: the caller makes sure no engine runs the effect (the command line takes its
   * lease first, and this deletes that lease too). An engine still holding the deleted lease finds
   * it lost at its next fenced write. Epochs issued afterwards are still higher than every epoch
   * issued before. Subject keys are not touched: they belong to subjects, not to effects. A store
   * may find an effect's rows on a source key through its cursor there, which the runtime writes
   * before any row on the key.
   *
   * @param effect the effect's name
   * @return true when the store held a lease, record, cursor, invocation row or journal entry of
   *     the effect; false when there was nothing to forget
   * @throws StoreException when the store cannot be reached; what was already deleted stays
   *     deleted, and forgetting again completes it
   */
  boolean forgetEffect(String effect);

  // ---- subject keys -----------------------------------------------------------------------------

  /**
   * Reads a subject's current data key.
   *
   * @param subject the subject
   * @return the key row, or empty when the subject has none (never sealed, or erased)
   * @throws StoreException when the store cannot be reached
   */
  Optional<SubjectKey> loadSubjectKey(String subject);

  /**
   * Stores {@code candidate} as the subject's key unless one exists.
   *
   * @param candidate a freshly made key
   * @return the stored key: {@code candidate}, or the one a concurrent caller stored first
   * @throws StoreException when the store cannot be reached
   */
  SubjectKey putSubjectKeyIfAbsent(SubjectKey candidate);

  /**
   * Destroys a subject's data key; every document sealed under it becomes unreadable.
   *
   * @param subject the subject
   * @return true when a key was deleted
   * @throws StoreException when the store cannot be reached
   */
  boolean eraseSubject(String subject);
}
