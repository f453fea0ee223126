package io.watukuy.store.memory;

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
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * {@link MemoryStore}'s effect tables (docs/stores.md, "EffectStore"). Every method runs under the
 * store's one lock, which it shares, so each call is atomic and sees every earlier one. Instants
 * are truncated to the millisecond on the way in, as a SQL store keeps them.
 */
final class MemoryEffects implements EffectStore {

  private static final Comparator<JournalEntry> BY_ORDINAL =
      Comparator.comparingInt(JournalEntry::ordinal).thenComparing(JournalEntry::callKey);

  private final Object lock;

  // Guarded by lock
  private final Map<String, EffectData> effects = new HashMap<>();

  // Guarded by lock: subject keys by subject
  private final Map<String, SubjectKey> subjectKeys = new HashMap<>();

  MemoryEffects(Object lock) {
    this.lock = lock;
  }

  /** Everything stored for one effect. Guarded by the store's lock. */
  private static final class EffectData {
    @Nullable Lease lease;
    // The highest epoch ever issued: a release clears the lease, not this.
    long lastEpoch;
    @Nullable EffectRecord record;
    final Map<PollerKey, SourceData> sources = new HashMap<>();
  }

  /** One effect's tables on one source key. Guarded by the store's lock. */
  private static final class SourceData {
    @Nullable EffectCursor cursor;
    final NavigableMap<Long, InvocationRow> invocations = new TreeMap<>();
    // position -> callKey -> entry
    final NavigableMap<Long, Map<String, JournalEntry>> journal = new TreeMap<>();
  }

  // ---- lease

  @Override
  public Optional<Lease> acquireEffectLease(
      String effect, String owner, Duration ttl, Instant now) {
    Objects.requireNonNull(owner, "owner");
    requirePositive(ttl);
    Instant at = Objects.requireNonNull(now, "now");
    synchronized (lock) {
      EffectData d = data(effect);
      Lease held = d.lease;
      if (held != null && !held.owner().equals(owner) && held.expiresAt().isAfter(at)) {
        return Optional.empty();
      }
      long epoch = held != null && held.owner().equals(owner) ? held.epoch() : ++d.lastEpoch;
      d.lease = new Lease(owner, epoch, ms(at.plus(ttl)));
      return Optional.of(d.lease);
    }
  }

  @Override
  public Optional<Lease> renewEffectLease(String effect, Lease lease, Duration ttl, Instant now) {
    requirePositive(ttl);
    Objects.requireNonNull(now, "now");
    synchronized (lock) {
      EffectData d = effects.get(Objects.requireNonNull(effect, "effect"));
      if (d == null || !isCurrent(d, lease)) {
        return Optional.empty();
      }
      d.lease = new Lease(lease.owner(), lease.epoch(), ms(now.plus(ttl)));
      return Optional.of(d.lease);
    }
  }

  @Override
  public void releaseEffectLease(String effect, Lease lease) {
    Objects.requireNonNull(lease, "lease");
    synchronized (lock) {
      EffectData d = effects.get(Objects.requireNonNull(effect, "effect"));
      if (d != null && isCurrent(d, lease)) {
        d.lease = null;
      }
    }
  }

  @Override
  public Optional<Lease> effectLease(String effect) {
    synchronized (lock) {
      EffectData d = effects.get(Objects.requireNonNull(effect, "effect"));
      return d == null ? Optional.empty() : Optional.ofNullable(d.lease);
    }
  }

  // ---- effect-wide state

  @Override
  public List<String> listEffects() {
    synchronized (lock) {
      List<String> out = new ArrayList<>();
      for (Map.Entry<String, EffectData> e : effects.entrySet()) {
        EffectData d = e.getValue();
        boolean hasCursor = d.sources.values().stream().anyMatch(s -> s.cursor != null);
        if (d.record != null || d.lease != null || hasCursor) {
          out.add(e.getKey());
        }
      }
      out.sort(Comparator.naturalOrder());
      return List.copyOf(out);
    }
  }

  @Override
  public Optional<EffectRecord> loadEffect(String effect) {
    synchronized (lock) {
      EffectData d = effects.get(Objects.requireNonNull(effect, "effect"));
      return d == null ? Optional.empty() : Optional.ofNullable(d.record);
    }
  }

  @Override
  public void setQuarantine(String effect, @Nullable String reason, Instant now) {
    Instant at = ms(now);
    synchronized (lock) {
      EffectData d = data(effect);
      EffectRecord r = d.record;
      if (reason == null) {
        if (r != null && r.quarantined()) {
          d.record = counts(r, null, null, r.lastTerminalError(), 0, 0, at);
        }
      } else if (r == null) {
        d.record = new EffectRecord(effect, at, reason, 0, null, 0, at);
      } else if (!r.quarantined()) {
        d.record = counts(r, at, reason, r.lastTerminalError(), 0, 0, at);
      }
    }
  }

  @Override
  public void addCounts(
      String effect,
      long terminalSkips,
      @Nullable String lastTerminalError,
      long latestCollapsed,
      Instant now) {
    EffectStore.checkCounts(effect, terminalSkips, latestCollapsed);
    Instant at = ms(now);
    synchronized (lock) {
      EffectData d = data(effect);
      EffectRecord r = d.record;
      if (r == null) {
        r = new EffectRecord(effect, null, null, 0, null, 0, at);
      }
      String error = lastTerminalError != null ? lastTerminalError : r.lastTerminalError();
      d.record =
          counts(
              r,
              r.quarantinedAt(),
              r.quarantineReason(),
              error,
              terminalSkips,
              latestCollapsed,
              at);
    }
  }

  private static EffectRecord counts(
      EffectRecord r,
      @Nullable Instant quarantinedAt,
      @Nullable String reason,
      @Nullable String lastTerminalError,
      long addSkips,
      long addCollapsed,
      Instant now) {
    return new EffectRecord(
        r.effect(),
        quarantinedAt,
        reason,
        r.terminalSkips() + addSkips,
        lastTerminalError,
        r.latestCollapsed() + addCollapsed,
        now);
  }

  // ---- cursors

  @Override
  public List<EffectCursor> loadCursors(String effect) {
    synchronized (lock) {
      EffectData d = effects.get(Objects.requireNonNull(effect, "effect"));
      if (d == null) {
        return List.of();
      }
      return d.sources.values().stream()
          .map(s -> s.cursor)
          .filter(Objects::nonNull)
          .sorted(Comparator.comparing(EffectCursor::source))
          .toList();
    }
  }

  @Override
  public void saveCursor(EffectCursor cursor, Lease lease) {
    Objects.requireNonNull(cursor, "cursor");
    EffectCursor stored =
        new EffectCursor(
            cursor.effect(),
            cursor.source(),
            cursor.watermark(),
            cursor.liveBoundary(),
            cursor.schemes(),
            ms(cursor.updatedAt()));
    synchronized (lock) {
      fenced(cursor.effect(), lease);
      source(cursor.effect(), cursor.source()).cursor = stored;
    }
  }

  @Override
  public OptionalLong lowestWatermark(PollerKey source) {
    Objects.requireNonNull(source, "source");
    synchronized (lock) {
      OptionalLong lowest = OptionalLong.empty();
      for (EffectData d : effects.values()) {
        SourceData s = d.sources.get(source);
        EffectCursor c = s == null ? null : s.cursor;
        if (c != null && (lowest.isEmpty() || c.watermark() < lowest.getAsLong())) {
          lowest = OptionalLong.of(c.watermark());
        }
      }
      return lowest;
    }
  }

  // ---- invocations

  @Override
  public void saveInvocation(InvocationRow row, Lease lease) {
    Objects.requireNonNull(row, "row");
    synchronized (lock) {
      fenced(row.effect(), lease);
      SourceData s = source(row.effect(), row.source());
      InvocationRow before = s.invocations.get(row.position());
      boolean skip = row.skipRequested() || (before != null && before.skipRequested());
      s.invocations.put(row.position(), truncated(row, skip, ms(row.updatedAt())));
    }
  }

  @Override
  public Optional<InvocationRow> loadInvocation(String effect, PollerKey source, long position) {
    synchronized (lock) {
      SourceData s = existing(effect, source);
      return s == null ? Optional.empty() : Optional.ofNullable(s.invocations.get(position));
    }
  }

  @Override
  public List<InvocationRow> listInvocations(
      String effect,
      PollerKey source,
      long afterPosition,
      Set<InvocationStatus> statuses,
      int limit) {
    Objects.requireNonNull(statuses, "statuses");
    requireLimit(limit);
    synchronized (lock) {
      SourceData s = existing(effect, source);
      if (s == null) {
        return List.of();
      }
      List<InvocationRow> out = new ArrayList<>();
      for (InvocationRow row : s.invocations.tailMap(afterPosition, false).values()) {
        if (out.size() == limit) {
          break;
        }
        if (statuses.isEmpty() || statuses.contains(row.status())) {
          out.add(row);
        }
      }
      return List.copyOf(out);
    }
  }

  @Override
  public long countInvocations(String effect, PollerKey source, long afterPosition) {
    synchronized (lock) {
      SourceData s = existing(effect, source);
      return s == null ? 0 : s.invocations.tailMap(afterPosition, false).size();
    }
  }

  @Override
  public boolean requestSkip(String effect, PollerKey source, long position, Instant now) {
    Instant at = ms(now);
    synchronized (lock) {
      SourceData s = existing(effect, source);
      InvocationRow row = s == null ? null : s.invocations.get(position);
      if (row == null || row.status() != InvocationStatus.FAILED) {
        return false;
      }
      s.invocations.put(position, truncated(row, true, at));
      return true;
    }
  }

  // ---- journal

  @Override
  public Optional<JournalEntry> loadJournalEntry(
      String effect, PollerKey source, long position, String callKey) {
    Objects.requireNonNull(callKey, "callKey");
    synchronized (lock) {
      SourceData s = existing(effect, source);
      Map<String, JournalEntry> calls = s == null ? null : s.journal.get(position);
      return calls == null ? Optional.empty() : Optional.ofNullable(calls.get(callKey));
    }
  }

  @Override
  public boolean appendJournalEntry(JournalEntry entry) {
    Objects.requireNonNull(entry, "entry");
    JournalEntry stored =
        new JournalEntry(
            entry.effect(),
            entry.source(),
            entry.position(),
            entry.callKey(),
            entry.ordinal(),
            entry.label(),
            entry.result(),
            entry.subject(),
            ms(entry.createdAt()));
    synchronized (lock) {
      Map<String, JournalEntry> calls =
          source(entry.effect(), entry.source())
              .journal
              .computeIfAbsent(entry.position(), p -> new HashMap<>());
      return calls.putIfAbsent(entry.callKey(), stored) == null;
    }
  }

  @Override
  public List<JournalEntry> listJournal(
      String effect, PollerKey source, long position, int offset, int limit) {
    if (offset < 0) {
      throw new IllegalArgumentException("offset must be >= 0, was " + offset);
    }
    requireLimit(limit);
    synchronized (lock) {
      SourceData s = existing(effect, source);
      Map<String, JournalEntry> calls = s == null ? null : s.journal.get(position);
      if (calls == null) {
        return List.of();
      }
      return calls.values().stream().sorted(BY_ORDINAL).skip(offset).limit(limit).toList();
    }
  }

  // ---- maintenance

  @Override
  public long rewind(
      String effect,
      PollerKey source,
      long position,
      boolean lowerLiveBoundary,
      Lease lease,
      Instant now) {
    if (position < 0) {
      throw new IllegalArgumentException(
          "rewind of effect " + effect + " on " + source + ": position must be >= 0: " + position);
    }
    Instant at = ms(now);
    synchronized (lock) {
      fenced(effect, lease);
      SourceData s = source(effect, source);
      NavigableMap<Long, InvocationRow> above = s.invocations.tailMap(position, false);
      long deleted = above.size();
      above.clear();
      s.journal.tailMap(position, false).clear();
      EffectCursor c = s.cursor;
      Long boundary = c == null ? null : c.liveBoundary();
      if (lowerLiveBoundary && (boundary == null || boundary > position)) {
        boundary = position;
      }
      s.cursor = new EffectCursor(effect, source, position, boundary, Map.of(), at);
      return deleted;
    }
  }

  @Override
  public int sweepInvocations(String effect, PollerKey source, Instant completedBefore, int limit) {
    Objects.requireNonNull(completedBefore, "completedBefore");
    requireLimit(limit);
    synchronized (lock) {
      SourceData s = existing(effect, source);
      EffectCursor c = s == null ? null : s.cursor;
      if (c == null) {
        return 0;
      }
      int deleted = 0;
      Iterator<InvocationRow> rows = s.invocations.headMap(c.watermark(), true).values().iterator();
      while (rows.hasNext() && deleted < limit) {
        InvocationRow row = rows.next();
        if (row.status().completed() && row.updatedAt().isBefore(completedBefore)) {
          rows.remove();
          s.journal.remove(row.position());
          deleted++;
        }
      }
      return deleted;
    }
  }

  /** {@inheritDoc} The epoch counter stays, so later epochs are still higher. */
  @Override
  public boolean forgetEffect(String effect) {
    synchronized (lock) {
      EffectData d = effects.get(Objects.requireNonNull(effect, "effect"));
      if (d == null) {
        return false;
      }
      boolean held =
          d.lease != null
              || d.record != null
              || d.sources.values().stream()
                  .anyMatch(
                      s -> s.cursor != null || !s.invocations.isEmpty() || !s.journal.isEmpty());
      d.lease = null;
      d.record = null;
      d.sources.clear();
      return held;
    }
  }

  // ---- subject keys

  @Override
  public Optional<SubjectKey> loadSubjectKey(String subject) {
    Objects.requireNonNull(subject, "subject");
    synchronized (lock) {
      return Optional.ofNullable(subjectKeys.get(subject));
    }
  }

  @Override
  public SubjectKey putSubjectKeyIfAbsent(SubjectKey candidate) {
    Objects.requireNonNull(candidate, "candidate");
    SubjectKey stored =
        new SubjectKey(
            candidate.subject(),
            candidate.keyId(),
            candidate.wrappedKey(),
            ms(candidate.createdAt()));
    synchronized (lock) {
      SubjectKey first = subjectKeys.putIfAbsent(candidate.subject(), stored);
      return first != null ? first : stored;
    }
  }

  @Override
  public boolean eraseSubject(String subject) {
    Objects.requireNonNull(subject, "subject");
    synchronized (lock) {
      return subjectKeys.remove(subject) != null;
    }
  }

  // ---- helpers; callers hold the lock unless noted

  private EffectData data(String effect) {
    return effects.computeIfAbsent(Objects.requireNonNull(effect, "effect"), e -> new EffectData());
  }

  private SourceData source(String effect, PollerKey source) {
    return data(effect)
        .sources
        .computeIfAbsent(Objects.requireNonNull(source, "source"), k -> new SourceData());
  }

  private @Nullable SourceData existing(String effect, PollerKey source) {
    EffectData d = effects.get(Objects.requireNonNull(effect, "effect"));
    return d == null ? null : d.sources.get(Objects.requireNonNull(source, "source"));
  }

  private static boolean isCurrent(EffectData d, Lease lease) {
    Lease current = d.lease;
    return current != null
        && current.epoch() == lease.epoch()
        && current.owner().equals(lease.owner());
  }

  /** Throws unless {@code lease} is the effect's stored lease; expiry is not checked. */
  private void fenced(String effect, Lease lease) {
    Objects.requireNonNull(lease, "lease");
    EffectData d = effects.get(Objects.requireNonNull(effect, "effect"));
    if (d == null || !isCurrent(d, lease)) {
      Lease current = d == null ? null : d.lease;
      throw EffectStore.effectLeaseLost(
          effect, lease.epoch(), current == null ? null : current.epoch());
    }
  }

  private static InvocationRow truncated(
      InvocationRow r, boolean skipRequested, Instant updatedAt) {
    Instant retryAt = r.retryAt();
    return new InvocationRow(
        r.effect(),
        r.source(),
        r.position(),
        r.lane(),
        r.eventType(),
        r.status(),
        r.attempt(),
        r.error(),
        retryAt == null ? null : ms(retryAt),
        skipRequested,
        r.version(),
        ms(r.startedAt()),
        updatedAt);
  }

  private static Instant ms(Instant instant) {
    return Objects.requireNonNull(instant, "instant").truncatedTo(ChronoUnit.MILLIS);
  }

  private static void requirePositive(Duration ttl) {
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("ttl must be positive, was " + ttl);
    }
  }

  private static void requireLimit(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive, was " + limit);
    }
  }
}
