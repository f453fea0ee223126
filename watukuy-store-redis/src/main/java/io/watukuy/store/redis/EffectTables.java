package io.watukuy.store.redis;

import static io.watukuy.store.redis.ScriptReplies.status;
import static io.watukuy.store.redis.ScriptReplies.text;

import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import io.watukuy.spi.EffectCursor;
import io.watukuy.spi.EffectRecord;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.JournalEntry;
import io.watukuy.spi.Lease;
import io.watukuy.spi.SubjectKey;
import io.watukuy.store.redis.Scripts.Script;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The effect tables of a {@link RedisStore}, its {@link EffectStore} (docs/stores.md, "RedisStore
 * and RedisBudgetStore"), laid out by {@link EffectLayout} and written by {@link EffectScripts}:
 * every method is one script on the effect's slot, plus these calls to keys in other slots.
 *
 * <ul>
 *   <li>{@code <prefix>{<source>}:effects} mirrors the watermark of each effect with a cursor on a
 *       source, in the source's slot: {@link #pruneLog} reads it to keep every event above the
 *       lowest, and {@link #lowestWatermark} reads its names, then their cursors, without a {@code
 *       SCAN}. It never sits above a cursor: a first cursor on the source, or one going down, finds
 *       the mirror not lowered, writes nothing and answers {@code INDEX}; the mirror is registered
 *       or lowered, then the write runs again. A cursor going up is written first and the mirror
 *       raised after ({@link EffectScripts#MIRROR_RAISE}). An effect is taken out only when it is
 *       forgotten ({@link #forgetEffect}).
 *   <li>{@code <prefix>effects} names the effects for {@link #listEffects}; an effect is added
 *       after the write that first gives it a lease, a record or a cursor (then its lease hash is
 *       marked {@code listed}), as {@link KeyIndex} lists poller keys. Listing checks each name
 *       still has one of the three.
 *   <li>{@code <prefix>subjects} holds the subject keys, one field per subject.
 * </ul>
 */
final class EffectTables implements EffectStore {
  private static final Logger log = LoggerFactory.getLogger(RedisStore.class);

  /** Statuses whose rows are complete in their lane (swept once old and under the watermark). */
  static final Set<InvocationStatus> COMPLETED =
      EnumSet.of(InvocationStatus.DONE, InvocationStatus.TERMINAL, InvocationStatus.SKIPPED);

  private final ScriptRunner scripts;
  private final EffectLayout layout;

  EffectTables(ScriptRunner scripts) {
    this.scripts = scripts;
    this.layout = new EffectLayout(scripts.layout().prefix());
  }

  EffectLayout layout() {
    return layout;
  }

  // ---- lease

  @Override
  public Optional<Lease> acquireEffectLease(
      String effect, String owner, Duration ttl, Instant now) {
    Objects.requireNonNull(owner, "owner");
    requirePositive(ttl);
    long nowMs = now.toEpochMilli();
    long expiresMs = now.plus(ttl).toEpochMilli();
    List<Object> reply =
        run(
            EffectScripts.ACQUIRE,
            effect,
            null,
            List.of(owner, Long.toString(nowMs), Long.toString(expiresMs)));
    if ("HELD".equals(status(reply))) {
      return Optional.empty();
    }
    expectOk(reply, EffectScripts.ACQUIRE, effect);
    long epoch = number(text(reply, 1), "lease epoch", effect);
    listIfNeeded(effect, reply, 2);
    return Optional.of(new Lease(owner, epoch, Instant.ofEpochMilli(expiresMs)));
  }

  @Override
  public Optional<Lease> renewEffectLease(String effect, Lease lease, Duration ttl, Instant now) {
    Objects.requireNonNull(lease, "lease");
    requirePositive(ttl);
    long expiresMs = now.plus(ttl).toEpochMilli();
    List<Object> reply =
        run(
            EffectScripts.RENEW,
            effect,
            null,
            List.of(lease.owner(), Long.toString(lease.epoch()), Long.toString(expiresMs)));
    if ("LOST".equals(status(reply))) {
      return Optional.empty();
    }
    expectOk(reply, EffectScripts.RENEW, effect);
    return Optional.of(new Lease(lease.owner(), lease.epoch(), Instant.ofEpochMilli(expiresMs)));
  }

  @Override
  public void releaseEffectLease(String effect, Lease lease) {
    Objects.requireNonNull(lease, "lease");
    expectOk(
        run(EffectScripts.RELEASE, effect, null, ScriptArgs.lease(lease)),
        EffectScripts.RELEASE,
        effect);
  }

  @Override
  public Optional<Lease> effectLease(String effect) {
    List<Object> reply = run(EffectScripts.GET_LEASE, effect, null, List.of());
    if (reply.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new Lease(
            text(reply, 0),
            number(text(reply, 1), "lease epoch", effect),
            Instant.ofEpochMilli(number(text(reply, 2), "lease expiry", effect))));
  }

  // ---- effect-wide state

  /**
   * {@inheritDoc}
   *
   * <p>Reads the set {@code <prefix>effects}, then checks for each name that the effect still has a
   * lease, a record or a cursor (one short script per effect, routed to its slot).
   */
  @Override
  public List<String> listEffects() {
    List<String> names =
        ScriptReplies.texts(
            scripts.run(
                EffectScripts.SET_MEMBERS,
                "listEffects",
                null,
                List.of(layout.effects()),
                List.of()));
    List<String> out = new ArrayList<>();
    for (String name : names) {
      if (number(run(EffectScripts.EXISTS, name, null, List.of()), 0, name) == 1) {
        out.add(name);
      }
    }
    out.sort(Comparator.naturalOrder());
    return List.copyOf(out);
  }

  @Override
  public Optional<EffectRecord> loadEffect(String effect) {
    List<Object> reply = run(EffectScripts.LOAD_RECORD, effect, null, List.of());
    if (reply.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(EffectRows.decodeRecord(effect, ScriptReplies.fieldMap(reply)));
  }

  @Override
  public void setQuarantine(String effect, @Nullable String reason, Instant now) {
    Objects.requireNonNull(now, "now");
    List<Object> reply =
        run(
            EffectScripts.SET_QUARANTINE,
            effect,
            null,
            List.of(
                reason == null ? "0" : "1",
                Long.toString(now.toEpochMilli()),
                reason == null ? "" : reason));
    expectOk(reply, EffectScripts.SET_QUARANTINE, effect);
    listIfNeeded(effect, reply, 1);
  }

  /** {@inheritDoc} One script of {@code HINCRBY}s, so concurrent adds lose nothing. */
  @Override
  public void addCounts(
      String effect,
      long terminalSkips,
      @Nullable String lastTerminalError,
      long latestCollapsed,
      Instant now) {
    Objects.requireNonNull(effect, "effect");
    Objects.requireNonNull(now, "now");
    EffectStore.checkCounts(effect, terminalSkips, latestCollapsed);
    List<String> args = new ArrayList<>();
    args.add(Long.toString(terminalSkips));
    args.add(Long.toString(latestCollapsed));
    args.add(Long.toString(now.toEpochMilli()));
    args.add(lastTerminalError == null ? "0" : "1");
    args.add(lastTerminalError == null ? "" : lastTerminalError);
    List<Object> reply = run(EffectScripts.ADD_COUNTS, effect, null, args);
    expectOk(reply, EffectScripts.ADD_COUNTS, effect);
    listIfNeeded(effect, reply, 1);
  }

  // ---- cursors

  @Override
  public List<EffectCursor> loadCursors(String effect) {
    List<Object> reply = run(EffectScripts.LOAD_CURSORS, effect, null, List.of());
    List<EffectCursor> cursors = new ArrayList<>();
    for (int i = 0; i + 1 < reply.size(); i += 2) {
      PollerKey source = KeyLayout.parseTag(text(reply, i));
      cursors.add(EffectRows.decodeCursor(effect, source, text(reply, i + 1)));
    }
    cursors.sort(Comparator.comparing(EffectCursor::source));
    return List.copyOf(cursors);
  }

  /**
   * {@inheritDoc}
   *
   * <p>The first cursor of an effect on a source takes two more calls: the effect is added to the
   * source's set of effects ({@link #lowestWatermark}) before the cursor is written.
   */
  @Override
  public void saveCursor(EffectCursor cursor, Lease lease) {
    Objects.requireNonNull(cursor, "cursor");
    Objects.requireNonNull(lease, "lease");
    String effect = cursor.effect();
    PollerKey source = cursor.source();
    String value = EffectRows.encodeCursor(cursor);
    List<Object> reply =
        indexedWrite(
            EffectScripts.SAVE_CURSOR,
            effect,
            source,
            lease,
            cursor.watermark(),
            flag -> List.of(KeyLayout.tag(source), value, flag));
    listIfNeeded(effect, reply, 1);
    raiseMirror(effect, source, cursor.watermark(), lease, reply, 2);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Reads the effect names from the mirror {@code <prefix>{<source>}:effects} (a hash: effect →
   * watermark), then each one's cursor (one short script per effect), so the answer is the cursors'
   * own: never a {@code SCAN}.
   */
  @Override
  public OptionalLong lowestWatermark(PollerKey source) {
    Objects.requireNonNull(source, "source");
    List<String> effects =
        ScriptReplies.texts(
            scripts.run(
                EffectScripts.MIRRORED,
                "lowestWatermark " + source,
                source,
                List.of(layout.sourceEffects(source)),
                List.of()));
    OptionalLong lowest = OptionalLong.empty();
    for (String effect : effects) {
      List<Object> reply =
          run(EffectScripts.WATERMARK, effect, null, List.of(KeyLayout.tag(source)));
      if (!reply.isEmpty()) {
        long watermark = number(text(reply, 0), "watermark", effect);
        if (lowest.isEmpty() || watermark < lowest.getAsLong()) {
          lowest = OptionalLong.of(watermark);
        }
      }
    }
    return lowest;
  }

  // ---- invocations

  @Override
  public void saveInvocation(InvocationRow row, Lease lease) {
    Objects.requireNonNull(row, "row");
    Objects.requireNonNull(lease, "lease");
    List<String> args = new ArrayList<>(ScriptArgs.lease(lease));
    args.add(RowCodec.member(row.position()));
    args.add(row.status().name());
    args.add(row.skipRequested() ? "1" : "0");
    args.add(Long.toString(row.updatedAt().toEpochMilli()));
    args.add(EffectRows.invocationRest(row));
    args.add(KeyLayout.tag(row.source()));
    fenced(
        run(EffectScripts.SAVE_INVOCATION, row.effect(), row.source(), args),
        EffectScripts.SAVE_INVOCATION,
        row.effect(),
        lease);
  }

  @Override
  public Optional<InvocationRow> loadInvocation(String effect, PollerKey source, long position) {
    if (position < 1) {
      return Optional.empty();
    }
    List<Object> reply =
        run(EffectScripts.LOAD_INVOCATION, effect, source, List.of(RowCodec.member(position)));
    if (reply.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(EffectRows.decodeInvocation(effect, source, position, text(reply, 0)));
  }

  /**
   * {@inheritDoc}
   *
   * <p>Walks the positions above {@code afterPosition} in order inside one script and filters by
   * status there; a narrow filter over a long history reads that history inside Redis.
   *
   * @throws IllegalArgumentException if {@code limit} is not positive
   */
  @Override
  public List<InvocationRow> listInvocations(
      String effect,
      PollerKey source,
      long afterPosition,
      Set<InvocationStatus> statuses,
      int limit) {
    Objects.requireNonNull(statuses, "statuses");
    requireLimit(limit);
    List<Object> reply =
        run(
            EffectScripts.LIST_INVOCATIONS,
            effect,
            source,
            List.of(
                ScriptArgs.after(afterPosition),
                Integer.toString(limit),
                EffectRows.statusFilter(statuses)));
    List<InvocationRow> rows = new ArrayList<>(reply.size() / 2);
    for (int i = 0; i + 1 < reply.size(); i += 2) {
      long position = number(text(reply, i), "invocation position", effect);
      rows.add(EffectRows.decodeInvocation(effect, source, position, text(reply, i + 1)));
    }
    return List.copyOf(rows);
  }

  @Override
  public long countInvocations(String effect, PollerKey source, long afterPosition) {
    return number(
        run(
            EffectScripts.COUNT_INVOCATIONS,
            effect,
            source,
            List.of(ScriptArgs.after(afterPosition))),
        0,
        effect);
  }

  @Override
  public boolean requestSkip(String effect, PollerKey source, long position, Instant now) {
    Objects.requireNonNull(now, "now");
    if (position < 1) {
      return false;
    }
    List<Object> reply =
        run(
            EffectScripts.REQUEST_SKIP,
            effect,
            source,
            List.of(RowCodec.member(position), Long.toString(now.toEpochMilli())));
    return number(reply, 0, effect) == 1;
  }

  // ---- journal

  @Override
  public Optional<JournalEntry> loadJournalEntry(
      String effect, PollerKey source, long position, String callKey) {
    Objects.requireNonNull(callKey, "callKey");
    if (position < 1) {
      return Optional.empty();
    }
    List<Object> reply =
        run(
            EffectScripts.LOAD_JOURNAL_ENTRY,
            effect,
            source,
            List.of(EffectRows.journalField(position, callKey)));
    if (reply.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(EffectRows.decodeEntry(effect, source, position, callKey, text(reply, 0)));
  }

  /** {@inheritDoc} One script: {@code HSETNX} of the entry, then its place in ordinal order. */
  @Override
  public boolean appendJournalEntry(JournalEntry entry) {
    Objects.requireNonNull(entry, "entry");
    List<Object> reply =
        run(
            EffectScripts.APPEND_JOURNAL,
            entry.effect(),
            entry.source(),
            List.of(
                EffectRows.journalField(entry.position(), entry.callKey()),
                EffectRows.callMember(entry),
                EffectRows.encodeEntry(entry),
                KeyLayout.tag(entry.source())));
    return number(reply, 0, entry.effect()) == 1;
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException if {@code offset} is negative or {@code limit} not positive
   */
  @Override
  public List<JournalEntry> listJournal(
      String effect, PollerKey source, long position, int offset, int limit) {
    if (offset < 0) {
      throw new IllegalArgumentException("offset must be >= 0, was " + offset);
    }
    requireLimit(limit);
    if (position < 1) {
      return List.of();
    }
    List<Object> reply =
        run(
            EffectScripts.LIST_JOURNAL,
            effect,
            source,
            List.of(RowCodec.member(position), Integer.toString(offset), Integer.toString(limit)));
    List<JournalEntry> entries = new ArrayList<>(reply.size() / 2);
    for (int i = 0; i + 1 < reply.size(); i += 2) {
      entries.add(
          EffectRows.decodeEntry(effect, source, position, text(reply, i), text(reply, i + 1)));
    }
    return List.copyOf(entries);
  }

  // ---- maintenance

  /**
   * {@inheritDoc}
   *
   * <p>One script deletes the rows and every journal entry above {@code position} (an entry
   * appended without a row too) and writes the cursor; the first cursor of the effect on {@code
   * source} takes two more calls, as {@link #saveCursor} does.
   *
   * @throws IllegalArgumentException if {@code position} is negative
   */
  @Override
  public long rewind(
      String effect,
      PollerKey source,
      long position,
      boolean lowerLiveBoundary,
      Lease lease,
      Instant now) {
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(now, "now");
    if (position < 0) {
      throw new IllegalArgumentException(
          "rewind of effect " + effect + " on " + source + ": position must be >= 0: " + position);
    }
    String tail = EffectRows.cursorTail(Map.of(), now);
    List<Object> reply =
        indexedWrite(
            EffectScripts.REWIND,
            effect,
            source,
            lease,
            position,
            flag ->
                List.of(
                    KeyLayout.tag(source),
                    RowCodec.member(position),
                    Long.toString(position),
                    lowerLiveBoundary ? "1" : "0",
                    tail,
                    flag));
    listIfNeeded(effect, reply, 2);
    raiseMirror(effect, source, position, lease, reply, 3);
    return number(reply, 1, effect);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Walks the completed rows by update time, oldest first, so rows too young to sweep are not
   * read; only completed rows above the watermark (the lanes that went ahead) are passed over.
   *
   * @throws IllegalArgumentException if {@code limit} is not positive
   */
  @Override
  public int sweepInvocations(String effect, PollerKey source, Instant completedBefore, int limit) {
    Objects.requireNonNull(completedBefore, "completedBefore");
    requireLimit(limit);
    List<Object> reply =
        run(
            EffectScripts.SWEEP,
            effect,
            source,
            List.of(
                KeyLayout.tag(source),
                Long.toString(completedBefore.toEpochMilli()),
                Integer.toString(limit)));
    return (int) number(reply, 0, effect);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Finds the sources through the effect's cursors, the sources its mirrors name and the sources
   * it wrote a row or a journal entry on (a source may have rows before its first cursor), then per
   * source deletes the rows, journal and cursor (one script on the effect's slot) and takes the
   * effect out of the source's mirror (the source's slot); then deletes the record, the lease (its
   * epoch counter stays) and the set of sources, and unlists the effect. The set of sources goes
   * last, so a forget cut short is found and completed by the next one; a mirror left behind keeps
   * more of the log meanwhile, never less.
   */
  @Override
  public boolean forgetEffect(String effect) {
    List<String> sources =
        ScriptReplies.texts(run(EffectScripts.FORGET_SOURCES, effect, null, List.of()));
    boolean held = false;
    for (String tag : sources) {
      PollerKey source = KeyLayout.parseTag(tag);
      held |= number(run(EffectScripts.FORGET_SOURCE, effect, source, List.of(tag)), 0, effect) > 0;
      scripts.run(
          EffectScripts.MIRROR_FORGET,
          op(EffectScripts.MIRROR_FORGET, effect, source),
          source,
          List.of(layout.sourceEffects(source)),
          List.of(effect));
    }
    held |= number(run(EffectScripts.FORGET, effect, null, List.of()), 0, effect) == 1;
    scripts.run(
        EffectScripts.SET_REMOVE, "forgetEffect", null, List.of(layout.effects()), List.of(effect));
    return held;
  }

  // ---- subject keys

  @Override
  public Optional<SubjectKey> loadSubjectKey(String subject) {
    Objects.requireNonNull(subject, "subject");
    String value = text(subjects(EffectScripts.LOAD_SUBJECT, subject, List.of(subject)), 0);
    return value.isEmpty()
        ? Optional.empty()
        : Optional.of(EffectRows.decodeSubject(subject, value));
  }

  /** {@inheritDoc} One script: {@code HSETNX}, then the stored key. */
  @Override
  public SubjectKey putSubjectKeyIfAbsent(SubjectKey candidate) {
    Objects.requireNonNull(candidate, "candidate");
    String subject = candidate.subject();
    List<Object> reply =
        subjects(
            EffectScripts.PUT_SUBJECT,
            subject,
            List.of(subject, EffectRows.encodeSubject(candidate)));
    return EffectRows.decodeSubject(subject, text(reply, 0));
  }

  @Override
  public boolean eraseSubject(String subject) {
    Objects.requireNonNull(subject, "subject");
    List<Object> reply = subjects(EffectScripts.ERASE_SUBJECT, subject, List.of(subject));
    return "1".equals(text(reply, 0));
  }

  // ---- running scripts

  /** Builds a fenced cursor write's arguments after the lease, given the source-indexed flag. */
  @FunctionalInterface
  private interface IndexedArgs {
    List<String> after(String indexedFlag);
  }

  /**
   * Runs a fenced cursor write at {@code watermark}. When the script answers {@code INDEX} (a first
   * cursor on the source, or one going down), the source's mirror is registered at or lowered to
   * the watermark first, then the write runs again saying so: the mirror never sits above the
   * cursor, even when the cursor write then fails.
   */
  private List<Object> indexedWrite(
      Script script,
      String effect,
      PollerKey source,
      Lease lease,
      long watermark,
      IndexedArgs args) {
    List<String> first = new ArrayList<>(ScriptArgs.lease(lease));
    first.addAll(args.after("0"));
    List<Object> reply = run(script, effect, source, first);
    if ("INDEX".equals(status(reply))) {
      scripts.run(
          EffectScripts.MIRROR_LOWER,
          op(script, effect, source),
          source,
          List.of(layout.sourceEffects(source)),
          mirrorArgs(effect, watermark, lease));
      List<String> again = new ArrayList<>(ScriptArgs.lease(lease));
      again.addAll(args.after("1"));
      reply = run(script, effect, source, again);
    }
    fenced(reply, script, effect, lease);
    return reply;
  }

  /**
   * Raises the source's mirror to {@code watermark} once the cursor write that moved it up
   * succeeded (the reply says so at {@code index}). A failure is logged, not thrown: the cursor is
   * written, and a mirror below it only keeps more of the log until the next advance raises it.
   */
  private void raiseMirror(
      String effect, PollerKey source, long watermark, Lease lease, List<Object> reply, int index) {
    if (reply.size() <= index || !"1".equals(reply.get(index))) {
      return;
    }
    try {
      scripts.run(
          EffectScripts.MIRROR_RAISE,
          "saveCursor effect " + effect + " on " + source,
          source,
          List.of(layout.sourceEffects(source)),
          mirrorArgs(effect, watermark, lease));
    } catch (StoreException e) {
      log.warn(
          "{}: the cursor of effect {} on {} was written but the log's floor was not raised; the"
              + " log keeps those events until its next cursor advance",
          scripts.storeName(),
          effect,
          source,
          e);
    }
  }

  private static List<String> mirrorArgs(String effect, long watermark, Lease lease) {
    return List.of(effect, RowCodec.member(watermark), Long.toString(lease.epoch()));
  }

  /**
   * Prunes the log of {@code key} ({@link io.watukuy.spi.StateStore#pruneLog}): one script on the
   * key's slot that also reads the key's mirror of its effects' watermarks, so no event above the
   * lowest of them goes.
   */
  int pruneLog(PollerKey key, Instant olderThan) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(olderThan, "olderThan");
    List<String> keys = new ArrayList<>(scripts.layout().keys(key));
    keys.add(layout.sourceEffects(key));
    List<Object> reply =
        scripts.run(Scripts.PRUNE_LOG, "pruneLog", key, keys, ScriptArgs.pruneLog(olderThan));
    return (int) scripts.number(reply, 0, Scripts.PRUNE_LOG, key);
  }

  /**
   * Adds the effect to the set of effects when a write reported it unlisted, then marks it. A
   * failure is logged, not thrown: the write itself succeeded, and the next write tries again.
   */
  private void listIfNeeded(String effect, List<Object> reply, int index) {
    if (reply.size() <= index || !"1".equals(reply.get(index))) {
      return;
    }
    try {
      scripts.run(
          EffectScripts.SET_ADD, "listEffects", null, List.of(layout.effects()), List.of(effect));
      run(EffectScripts.MARK_LISTED, effect, null, List.of());
    } catch (StoreException e) {
      log.warn(
          "{}: effect {} was written but not yet listed; its next write lists it",
          scripts.storeName(),
          effect,
          e);
    }
  }

  private List<Object> run(
      Script script, String effect, @Nullable PollerKey source, List<String> args) {
    Objects.requireNonNull(effect, "effect");
    List<String> keys;
    if (source == null) {
      keys = layout.keys(effect);
    } else {
      keys = layout.keys(effect, source);
    }
    return scripts.run(script, op(script, effect, source), null, keys, args);
  }

  private List<Object> subjects(Script script, String subject, List<String> args) {
    return scripts.run(
        script, script.name() + " subject " + subject, null, List.of(layout.subjects()), args);
  }

  private static String op(Script script, String effect, @Nullable PollerKey source) {
    return script.name() + " effect " + effect + (source == null ? "" : " on " + source);
  }

  private void fenced(List<Object> reply, Script script, String effect, Lease lease) {
    if ("LEASE_LOST".equals(status(reply))) {
      String current = text(reply, 1);
      throw EffectStore.effectLeaseLost(
          effect, lease.epoch(), current.isEmpty() ? null : number(current, "lease epoch", effect));
    }
    expectOk(reply, script, effect);
  }

  private void expectOk(List<Object> reply, Script script, String effect) {
    if (!"OK".equals(status(reply))) {
      throw new StoreException(
          scripts.describe(op(script, effect, null), null) + " failed: unexpected reply " + reply,
          null);
    }
  }

  private long number(List<Object> reply, int index, String what) {
    return number(text(reply, index), "reply", what);
  }

  private long number(String text, String what, String effect) {
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new StoreException(
          "redis store: stored "
              + what
              + " of effect "
              + effect
              + " is not a number: '"
              + text
              + "'",
          e);
    }
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
