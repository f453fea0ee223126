package io.watukuy.effects.internal;

import io.watukuy.Backoff;
import io.watukuy.ChangeEvent;
import io.watukuy.EventType;
import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.TimeSource;
import io.watukuy.effects.Effect;
import io.watukuy.effects.EffectState;
import io.watukuy.effects.EffectStatus;
import io.watukuy.effects.InvalidRequest;
import io.watukuy.effects.SourceStatus;
import io.watukuy.effects.StoredStatus;
import io.watukuy.effects.TerminalFailure;
import io.watukuy.internal.Envelope;
import io.watukuy.internal.Json;
import io.watukuy.spi.EffectCursor;
import io.watukuy.spi.EffectRecord;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One effect's runtime (docs/effects.md): its reader reads the source log per key, queues events in
 * lanes, hands due lanes to the shared workers, and moves the watermark as lanes complete. A worker
 * never touches the lanes: it records its invocation in the store and queues the outcome, which the
 * next {@link #pass()} applies. Every write that moves the effect is fenced by the effect's lease.
 */
public final class EffectRun<T> {
  /** The invocation backoff (docs/effects.md, "Invocations"): 200 ms doubling to 60 s. */
  public static final Backoff BACKOFF =
      new Backoff(Duration.ofMillis(200), 2.0, Duration.ofSeconds(60));

  /** How long the effect's lease lasts; renewed after a third of it. */
  public static final Duration LEASE_TTL = Duration.ofSeconds(30);

  /** How often completed invocations older than the journal retention are swept: hourly. */
  public static final Duration SWEEP_INTERVAL = Duration.ofHours(1);

  /**
   * What an engine sets for each effect it runs.
   *
   * @param journalRetention how long a completed invocation and its journal are kept
   * @param quarantineAfter failed attempts in a row (to be retried or terminal), across every lane
   *     with no success between, that quarantine the effect; 0 never does
   */
  public record Settings(Duration journalRetention, int quarantineAfter) {}

  private static final Logger LOG = LoggerFactory.getLogger("io.watukuy.effects");
  private static final int ROW_PAGE = 1000;
  private static final int LOG_PAGE = 10_000;

  private record Outcome(
      long generation,
      PollerKey source,
      SourceLanes.Pending pending,
      InvocationStatus status,
      int attempt,
      @Nullable String error,
      @Nullable Instant retryAt,
      boolean leaseLost,
      boolean notStarted) {
    Outcome(
        long generation,
        PollerKey source,
        SourceLanes.Pending pending,
        InvocationStatus status,
        int attempt,
        @Nullable String error,
        @Nullable Instant retryAt,
        boolean leaseLost) {
      this(generation, source, pending, status, attempt, error, retryAt, leaseLost, false);
    }
  }

  // Whether the effect is quarantined, as last seen or just tripped: a worker looks at it before it
  // starts an invocation, so that what was handed to the pool before a quarantine does not run
  // after it (docs/effects.md, "Automatic quarantine"), and failures still coming in do not count.
  private volatile boolean halted;

  private final Effect<T> effect;
  private final StateStore log;
  private final EffectStore store;
  private final TimeSource time;
  private final Executor workers;
  private final String owner;
  private final Runnable wake;
  private final Function<@Nullable String, String> redaction;
  private final Settings settings;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final FailureRun failureRun = new FailureRun();
  private final ConcurrentLinkedQueue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
  private final Map<PollerKey, SourceLanes> sources = new TreeMap<>();
  private @Nullable Lease lease;
  private @Nullable Instant renewAt;
  private long generation;
  private boolean stopped;
  private boolean dispatching = true;
  private volatile boolean abandoned;
  private @Nullable Instant nextSweep;
  // The persisted quarantine as last seen (its start time, null when none), so that a change made
  // elsewhere (the CLI on the store, another engine) is logged once, not once per pass.
  private boolean quarantineSeen;
  private @Nullable Instant quarantinedAt;

  /**
   * Creates the runtime of one effect; nothing runs until {@link #pass()}.
   *
   * @param effect the effect
   * @param store the store: the source's log and the effect's tables
   * @param time the clock
   * @param workers where invocations run (shared by every effect)
   * @param owner this engine's instance id, the lease's owner
   * @param wake called when an invocation finished, so the reader passes again
   * @param redaction hides the engine's secrets in every error kept or logged
   * @param settings the engine's journal retention and quarantine threshold
   * @throws IllegalArgumentException if {@code store} keeps no effect tables ({@link
   *     StateStore#effects()} is empty)
   */
  public EffectRun(
      Effect<T> effect,
      StateStore store,
      TimeSource time,
      Executor workers,
      String owner,
      Runnable wake,
      Function<@Nullable String, String> redaction,
      Settings settings) {
    this.effect = effect;
    this.log = store;
    this.store =
        store
            .effects()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "store " + store.getClass().getName() + " keeps no effect tables"));
    this.time = time;
    this.workers = workers;
    this.owner = owner;
    this.wake = wake;
    this.redaction = redaction;
    this.settings = settings;
  }

  /** The effect run. */
  public Effect<T> effect() {
    return effect;
  }

  /**
   * Looks at the effect's persisted quarantine as the engine starts (docs/effects.md, "States"): a
   * quarantined effect is logged at WARN with since when, its reason as stored (redacted) and how
   * to release it, since nothing of it is dispatched until then. Later passes log each change from
   * there once. A store that cannot be reached is not an error here: the first pass looks again and
   * logs the same line.
   */
  public synchronized void announce() {
    try {
      noteQuarantine(store.loadEffect(effect.name()));
    } catch (RuntimeException e) {
      LOG.debug(
          "effect {}: quarantine not read at start: {}",
          effect.name(),
          Errors.describe(e, redaction));
    }
  }

  /**
   * One look at everything: applies finished invocations, takes skips, reads the log, dispatches
   * due lanes and saves the watermark.
   *
   * @return whether anything changed (another pass may find more to do)
   */
  public synchronized boolean pass() {
    if (stopped || !dispatching) return false;
    Instant now = time.now();
    if (!holdLease(now)) return false;
    boolean changed = applyOutcomes();
    if (lease == null) return false;
    boolean quarantined = noteQuarantine(store.loadEffect(effect.name()));
    halted = quarantined;
    for (PollerKey key : sourceKeys()) {
      try {
        SourceLanes s = sources.get(key);
        if (s == null) {
          s = load(key, now);
          sources.put(key, s);
          changed = true;
        }
        if (s.blocked != null) continue;
        changed |= honourSkips(s, now);
        changed |= read(s, now);
        if (!quarantined) changed |= dispatch(s, now);
        changed |= saveWatermark(s, now);
        s.lastError = null;
      } catch (LeaseLostException e) {
        lose("its lease was taken: " + e.getMessage());
        return false;
      } catch (RuntimeException e) {
        SourceLanes s = sources.get(key);
        String msg = Errors.describe(e, redaction);
        if (s != null) s.lastError = msg;
        LOG.warn("effect {} on {}: {}", effect.name(), key, msg);
      }
    }
    if (nextSweep == null || !now.isBefore(nextSweep)) {
      nextSweep = now.plus(SWEEP_INTERVAL);
      try {
        sweep(now);
      } catch (RuntimeException e) {
        LOG.warn(
            "effect {}: sweeping old invocations failed: {}",
            effect.name(),
            Errors.describe(e, redaction));
      }
    }
    return changed;
  }

  /**
   * Deletes the completed invocations, and their journals, last updated more than the journal
   * retention before {@code now} (docs/effects.md, "Retention"): only at or below each source key's
   * persisted watermark, and nothing on a key where the effect has persisted no watermark yet (no
   * cursor, or a cursor still at 0).
   *
   * @param now the current time
   * @return the invocations deleted
   */
  public synchronized int sweep(Instant now) {
    Instant before = now.minus(settings.journalRetention());
    int total = 0;
    for (EffectCursor c : store.loadCursors(effect.name())) {
      if (c.watermark() == 0) continue;
      int n;
      do {
        n = store.sweepInvocations(effect.name(), c.source(), before, ROW_PAGE);
        total += n;
      } while (n == ROW_PAGE);
    }
    if (total > 0)
      LOG.info(
          "effect {}: swept {} completed invocations older than {}",
          effect.name(),
          total,
          settings.journalRetention());
    return total;
  }

  /**
   * Stops dispatching for good (a shutdown): no further pass runs anything; invocations in flight
   * go on. The lease is kept until {@link #stop()}.
   */
  public synchronized void stopDispatching() {
    dispatching = false;
  }

  /**
   * The shutdown gave up waiting for the invocations in flight and is about to interrupt them
   * (docs/effects.md, "Shutdown"): a failure one of them ends in from here on, such as the {@code
   * InterruptedException} of a call the interrupt cut short, is the shutdown's doing, not the
   * invocation's, so it is not recorded (no attempt, no error, no backoff). Its row stays {@code
   * RUNNING} and it replays at the next start. Call {@link #stopDispatching()} first.
   */
  public void abandon() {
    abandoned = true;
  }

  /** Invocations handed to the workers and not finished yet. */
  public int inFlight() {
    return inFlight.get();
  }

  /** Passes until nothing changes: with workers that run on the calling thread, until idle. */
  public void drain() {
    while (pass()) {
      // each pass applies what the previous one dispatched
    }
  }

  /** When the earliest parked lane is due, or null when none waits. */
  public synchronized @Nullable Instant nextDue() {
    Instant next = null;
    for (SourceLanes s : sources.values()) {
      Instant due = s.nextDue();
      if (due != null && (next == null || due.isBefore(next))) next = due;
    }
    return next;
  }

  /** Whether this engine holds the effect's lease. */
  public synchronized boolean running() {
    return lease != null;
  }

  /**
   * Stops for good and gives the lease up; in-flight invocations finish but their outcomes are
   * dropped (their rows say running, and they replay at the next start).
   */
  public synchronized void stop() {
    stopped = true;
    Lease held = lease;
    lease = null;
    generation++;
    sources.clear();
    if (held != null) {
      try {
        store.releaseEffectLease(effect.name(), held);
      } catch (RuntimeException e) {
        LOG.warn(
            "effect {}: releasing its lease failed: {}",
            effect.name(),
            Errors.describe(e, redaction));
      }
    }
  }

  /** The effect's status as this engine sees it (docs/effects.md, "States"). */
  public synchronized EffectStatus status() {
    Instant now = time.now();
    EffectRecord r = store.loadEffect(effect.name()).orElse(null);
    List<SourceStatus> list = new ArrayList<>();
    if (lease != null) {
      for (SourceLanes s : sources.values()) {
        // One state read per source key per status, not per event: the whole backlog counts.
        s.logHead = log.loadState(s.source).map(PollerState::lastSequence).orElse(0L);
        list.add(s.status(now));
      }
    } else {
      // Another engine holds the lease (or none does): the store shows what it runs, read by the
      // same rule as `watukuy effects show`, so every view of the effect says the same state.
      for (EffectCursor c : store.loadCursors(effect.name()))
        list.add(judgedBlocked(c, StoredStatus.of(log, store, c, now)));
    }
    boolean quarantined = r != null && r.quarantined();
    boolean blocked = list.stream().anyMatch(SourceStatus::blocked);
    int wedged = list.stream().mapToInt(SourceStatus::wedgedLanes).sum();
    long lag = list.stream().mapToLong(SourceStatus::lag).sum();
    return new EffectStatus(
        effect.name(),
        EffectState.derive(quarantined, blocked, wedged, lag),
        lease != null,
        list,
        r == null ? 0 : r.terminalSkips(),
        r == null ? 0 : r.latestCollapsed(),
        r == null ? null : r.lastTerminalError(),
        r == null ? null : r.quarantineReason());
  }

  // ---- lease ------------------------------------------------------------------------------

  private boolean holdLease(Instant now) {
    if (lease == null) {
      Optional<Lease> got = store.acquireEffectLease(effect.name(), owner, LEASE_TTL, now);
      if (got.isEmpty()) return false;
      lease = got.get();
      generation++;
      sources.clear();
      failureRun.reset();
      renewAt = now.plus(LEASE_TTL.dividedBy(3));
      return true;
    }
    if (renewAt != null && now.isBefore(renewAt)) return true;
    Optional<Lease> renewed = store.renewEffectLease(effect.name(), lease, LEASE_TTL, now);
    if (renewed.isEmpty()) {
      lose("its lease could not be renewed");
      return false;
    }
    lease = renewed.get();
    renewAt = now.plus(LEASE_TTL.dividedBy(3));
    return true;
  }

  private void lose(String why) {
    LOG.warn("effect {} stops here: {}", effect.name(), why);
    lease = null;
    generation++;
    sources.clear();
  }

  // ---- reading ------------------------------------------------------------------------------

  private List<PollerKey> sourceKeys() {
    List<PollerKey> keys = new ArrayList<>();
    for (String p : effect.source().partitions())
      keys.add(new PollerKey(effect.source().name(), p));
    return keys;
  }

  /** Restores a source key: its watermark, and the rows an earlier run left above it. */
  private SourceLanes load(PollerKey key, Instant now) {
    EffectCursor cursor =
        store.loadCursors(effect.name()).stream()
            .filter(c -> c.source().equals(key))
            .findFirst()
            .orElse(null);
    long watermark = cursor == null ? 0 : cursor.watermark();
    Long boundary = cursor == null ? null : cursor.liveBoundary();
    if (boundary == null) boundary = logHead(key, watermark);
    SourceLanes s = new SourceLanes(key, watermark, boundary);
    Set<String> lanesAbove = new TreeSet<>();
    long after = watermark;
    while (true) {
      List<InvocationRow> rows =
          store.listInvocations(effect.name(), key, after, Set.of(), ROW_PAGE);
      for (InvocationRow row : rows) {
        s.restore(row);
        lanesAbove.add(row.lane());
        if (row.status() == InvocationStatus.RUNNING && !row.version().equals(effect.version()))
          LOG.warn(
              "effect {} on {}: position {} was left in flight by version {}; it replays under"
                  + " version {}",
              effect.name(),
              key,
              row.position(),
              row.version(),
              effect.version());
        else if (row.status() == InvocationStatus.RUNNING)
          // a kill, or the shutdown's 30 s, cut it short: its recorded calls come back from the
          // journal, and the one in flight then may be sent once more (docs/effects.md, "Shutdown")
          LOG.info(
              "effect {} on {}: position {} in lane {} was left in flight by a stopped engine"
                  + " (attempt {}); it replays now",
              effect.name(),
              key,
              row.position(),
              laneName(row.lane()),
              row.attempt());
        after = row.position();
      }
      if (rows.size() < ROW_PAGE) break;
    }
    if (cursor == null) {
      store.saveCursor(
          new EffectCursor(effect.name(), key, 0, boundary, effect.schemes(), now), lease());
    } else if (cursor.liveBoundary() == null
        || (lanesAbove.isEmpty() && !cursor.schemes().equals(effect.schemes()))) {
      // The first start since the boundary was introduced or lowered away: it is set now, once.
      // With nothing outstanding the declared schemes are recorded now, not when the watermark
      // next moves: after a rewind (which forgets them) or a change with no lane outstanding, the
      // rows this run writes must be judged against the schemes they are written under.
      Map<String, String> schemes = lanesAbove.isEmpty() ? effect.schemes() : cursor.schemes();
      store.saveCursor(
          new EffectCursor(effect.name(), key, watermark, boundary, schemes, now), lease());
    }
    if (cursor != null && !lanesAbove.isEmpty()) {
      s.blocked = blockedBy(cursor, lanesAbove.size());
      if (s.blocked != null) LOG.warn("effect {} on {}: {}", effect.name(), key, s.blocked);
    }
    return s;
  }

  /** The highest position in the log of {@code key}, reading on from {@code from}. */
  private long logHead(PollerKey key, long from) {
    long head = from;
    while (true) {
      List<LoggedEvent> page = log.readLog(key, LogRange.after(head), LOG_PAGE);
      if (!page.isEmpty()) head = page.get(page.size() - 1).sequence();
      if (page.size() < LOG_PAGE) return head;
    }
  }

  /**
   * The event types whose key scheme differs between what was recorded and what is declared, as
   * {@code type (was → is)}; a type only one side has is no change.
   *
   * @param recorded the schemes persisted with the watermark
   * @param declared the effect's schemes now
   * @return the changes, in the recorded map's order
   */
  public static List<String> movedSchemes(
      Map<String, String> recorded, Map<String, String> declared) {
    List<String> moved = new ArrayList<>();
    new TreeMap<>(recorded)
        .forEach(
            (type, was) -> {
              String is = declared.get(type);
              if (is != null && !is.equals(was)) moved.add(type + " (" + was + " → " + is + ")");
            });
    return moved;
  }

  /**
   * A store-read status with the blocked judgement the lease holder makes at its start: this engine
   * declares the same schemes, so it can tell from the cursor and the rows above the watermark
   * whether the holder is blocked (docs/effects.md, "States"). A blocked key runs nothing, so its
   * stuck lanes are not listed, as the holder does not list them.
   */
  private SourceStatus judgedBlocked(EffectCursor cursor, SourceStatus read) {
    if (movedSchemes(cursor.schemes(), effect.schemes()).isEmpty()) return read;
    Set<String> lanes = new TreeSet<>();
    long after = cursor.watermark();
    while (true) {
      List<InvocationRow> rows =
          store.listInvocations(effect.name(), cursor.source(), after, Set.of(), ROW_PAGE);
      for (InvocationRow row : rows) lanes.add(row.lane());
      if (rows.size() < ROW_PAGE) break;
      after = rows.get(rows.size() - 1).position();
    }
    String why = lanes.isEmpty() ? null : blockedBy(cursor, lanes.size());
    if (why == null) return read;
    return new SourceStatus(
        read.source(),
        read.position(),
        read.head(),
        read.lag(),
        0,
        List.of(),
        null,
        null,
        true,
        why,
        List.of());
  }

  /** Why a key scheme change blocks the key, or null when every scheme is as recorded. */
  private @Nullable String blockedBy(EffectCursor cursor, int lanesAbove) {
    List<String> moved = movedSchemes(cursor.schemes(), effect.schemes());
    if (moved.isEmpty()) return null;
    return "blocked: the key scheme of "
        + String.join(", ", moved)
        + " changed while "
        + lanesAbove
        + (lanesAbove == 1 ? " lane is" : " lanes are")
        + " outstanding above position "
        + cursor.watermark()
        + "; deploy the previous key and let it drain, or rewind to "
        + cursor.watermark()
        + " (docs/effects.md, \"States\")";
  }

  private boolean read(SourceLanes s, Instant now) {
    boolean changed = false;
    while (s.held() < effect.readAhead()) {
      int limit = Math.min(effect.batchSize(), effect.readAhead() - s.held());
      List<LoggedEvent> batch = log.readLog(s.source, LogRange.after(s.head), limit);
      accept(s, batch, now);
      changed |= !batch.isEmpty();
      if (batch.size() < limit) break;
    }
    return changed;
  }

  /**
   * Queues one reader batch in its lanes (docs/effects.md, "Latest and live arms"): an {@code on
   * live} arm passes the events at or below the live boundary, and an {@code on latest} arm queues
   * only the newest event of its type per lane in the batch and passes the older ones, counting
   * them. An event an earlier run left unfinished is never folded: its row goes on where it was.
   * One an earlier run folded (a later event of its lane has a row, it has none) passes again
   * uncounted, so a restart below the watermark neither runs an older event after a newer one nor
   * counts a fold twice.
   */
  private void accept(SourceLanes s, List<LoggedEvent> batch, Instant now) {
    List<SourceLanes.Pending> queued = new ArrayList<>();
    Map<String, Long> newest = new HashMap<>();
    for (LoggedEvent e : batch) {
      if (s.completedBefore(e.sequence())) continue;
      EventType type = EventType.fromWire(Json.tree(e.event()).get("type").asText());
      Effect.On<T> on = effect.arms().get(type);
      if (on == null || (on.mode() == Effect.Mode.LIVE && isHistory(s, e.sequence()))) {
        s.pass(e.sequence());
        continue;
      }
      SourceLanes.Pending p = pending(e, type, on);
      queued.add(p);
      if (foldable(s, on, p)) newest.put(foldKey(p), p.position);
    }
    long folded = 0;
    for (SourceLanes.Pending p : queued) {
      boolean foldable = foldable(s, effect.arms().get(p.type), p);
      if (foldable && s.superseded(p)) {
        s.pass(p.position);
      } else if (foldable && newest.get(foldKey(p)) != p.position) {
        s.pass(p.position);
        folded++;
      } else {
        s.accept(p);
      }
    }
    if (folded > 0) store.addCounts(effect.name(), 0, null, folded, now);
  }

  private static boolean isHistory(SourceLanes s, long position) {
    return s.liveBoundary != null && position <= s.liveBoundary;
  }

  private static boolean foldable(SourceLanes s, Effect.On<?> on, SourceLanes.Pending p) {
    return on.mode() == Effect.Mode.LATEST && p.lane != null && !s.leftUnfinished(p.position);
  }

  /** A lane as the log names it: {@code (no key)} for an event that belongs to no key. */
  private static String laneName(String lane) {
    return lane.isEmpty() ? "(no key)" : lane;
  }

  private static String foldKey(SourceLanes.Pending p) {
    return p.type.wire() + " " + p.lane;
  }

  private SourceLanes.Pending pending(LoggedEvent e, EventType type, Effect.On<T> on) {
    String lane = null;
    String keyError = null;
    try {
      lane = on.key().lane(Envelope.fromLog(e, effect.source().type(), 1));
    } catch (RuntimeException ex) {
      keyError =
          "key '"
              + on.key().scheme()
              + "' of the "
              + type.wire()
              + " arm failed, so the event belongs to no lane: "
              + Errors.describe(ex, redaction);
    }
    return new SourceLanes.Pending(e, type, lane, keyError);
  }

  // ---- skips ----------------------------------------------------------------------------------

  private boolean honourSkips(SourceLanes s, Instant now) {
    if (!s.anyParked()) return false;
    boolean changed = false;
    for (InvocationRow row :
        store.listInvocations(
            effect.name(), s.source, s.watermark, Set.of(InvocationStatus.FAILED), ROW_PAGE)) {
      if (!row.skipRequested()) continue;
      SourceLanes.Pending p = s.parkedHead(row.position());
      if (p == null) continue;
      store.saveInvocation(
          new InvocationRow(
              row.effect(),
              row.source(),
              row.position(),
              row.lane(),
              row.eventType(),
              InvocationStatus.SKIPPED,
              row.attempt(),
              row.error(),
              null,
              true,
              row.version(),
              row.startedAt(),
              now),
          lease());
      long before = s.low();
      s.complete(p);
      long after = s.low();
      // The watermark is saved at the end of this pass; the log says where it goes.
      if (after > before)
        LOG.info(
            "effect {} on {}: position {} in lane {} skipped by request; the watermark moves from"
                + " {} to {}",
            effect.name(),
            s.source,
            p.position,
            laneName(p.laneKey()),
            s.watermark,
            after);
      else
        LOG.info(
            "effect {} on {}: position {} in lane {} skipped by request; only its lane was"
                + " released, the watermark stays at {} (held by position {})",
            effect.name(),
            s.source,
            p.position,
            laneName(p.laneKey()),
            after,
            after + 1);
      changed = true;
    }
    return changed;
  }

  // ---- retry now ------------------------------------------------------------------------------

  /**
   * Makes parked lanes due now (docs/effects.md, "Retry now"): each lane whose head has failed and
   * waits for its retry time gets that time, in memory and in its stored row's {@code retryAt}, set
   * to now, so the next {@link #pass()} dispatches it. The attempt count is kept, so the backoff
   * after another failure goes on from it. A quarantined effect stays quarantined: its lanes are
   * due, and run when it is released.
   *
   * @param source the source key to look at, or null for every key
   * @param position the one position to make due, or 0 for every parked lane
   * @return the lanes made due; 0 when this engine does not hold the effect's lease (the lanes live
   *     on the engine that does), or when no parked lane matched
   * @throws io.watukuy.StoreException when the store cannot be reached
   */
  public synchronized int retryNow(@Nullable PollerKey source, long position) {
    if (stopped || lease == null) return 0;
    Instant now = time.now();
    int made = 0;
    List<Long> positions = new ArrayList<>();
    try {
      for (SourceLanes s : sources.values()) {
        if (source != null && !s.source.equals(source)) continue;
        for (SourceLanes.Pending p : s.parkedHeads()) {
          if (position > 0 && p.position != position) continue;
          InvocationRow row =
              store.loadInvocation(effect.name(), s.source, p.position).orElse(null);
          // Only a row that says failed: a running one left by a crash replays at once anyway.
          if (row == null || row.status() != InvocationStatus.FAILED) continue;
          store.saveInvocation(row.withRetryAt(now, now), lease());
          p.retryAt = now;
          made++;
          positions.add(p.position);
        }
      }
    } catch (LeaseLostException e) {
      lose("its lease was taken: " + e.getMessage());
    }
    if (made > 0)
      LOG.info(
          "effect {}: {} parked lane(s) made due now by request (position(s) {})",
          effect.name(),
          made,
          positions.size() <= 20 ? positions : positions.subList(0, 20) + "…");
    return made;
  }

  // ---- invocations ----------------------------------------------------------------------------

  private boolean dispatch(SourceLanes s, Instant now) {
    List<SourceLanes.Pending> due = s.takeDue(now);
    long gen = generation;
    Lease held = lease();
    for (SourceLanes.Pending p : due) {
      int attempt = p.attempt + 1;
      String lastError = p.error;
      inFlight.incrementAndGet();
      try {
        workers.execute(
            () -> {
              try {
                invoke(gen, held, s.source, p, attempt, lastError);
              } finally {
                inFlight.decrementAndGet();
                wake.run();
              }
            });
      } catch (RejectedExecutionException e) {
        inFlight.decrementAndGet();
        s.untake(p);
      }
    }
    return !due.isEmpty();
  }

  /** Runs on a worker: records the attempt, runs the arm, records the outcome. */
  private void invoke(
      long gen,
      Lease held,
      PollerKey source,
      SourceLanes.Pending p,
      int attempt,
      @Nullable String lastError) {
    String lane = p.laneKey();
    if (halted) {
      // Quarantined since it was handed to the pool: it goes back to its lane, not started.
      outcomes.add(
          new Outcome(gen, source, p, InvocationStatus.FAILED, attempt, null, null, false, true));
      wake.run();
      return;
    }
    Instant started = time.now();
    InvocationStatus status;
    String error = null;
    Duration serverWait = null;
    p.runningAttempt = attempt;
    p.runningError = null;
    p.runningSince = started;
    try {
      save(held, source, p, InvocationStatus.RUNNING, attempt, lastError, null, started);
      if (p.keyError != null) throw new IllegalStateException(p.keyError);
      Effect.On<T> on = effect.arms().get(p.type);
      ChangeEvent<T> event = Envelope.fromLog(p.logged, effect.source().type(), attempt);
      InvocationContext ctx =
          new InvocationContext(effect.name(), source, p.position, attempt, store, time, redaction)
              .services(services())
              .onResend(
                  resent -> {
                    p.runningError = resent;
                    save(held, source, p, InvocationStatus.RUNNING, attempt, resent, null, started);
                  });
      try {
        on.arm().run(ctx, event);
        status = ctx.terminal() == null ? InvocationStatus.DONE : InvocationStatus.TERMINAL;
        error = ctx.terminal() == null ? null : Errors.redact(ctx.terminal(), redaction);
      } catch (TerminalFailure tf) {
        status = InvocationStatus.TERMINAL;
        error = Errors.redact(ctx.terminal() != null ? ctx.terminal() : tf.getMessage(), redaction);
      } catch (InvalidRequest bad) {
        // Built from the event's values, the request is as invalid on every retry.
        status = InvocationStatus.TERMINAL;
        error =
            Errors.redact(
                ctx.terminal() != null
                    ? ctx.terminal()
                    : "effect "
                        + effect.name()
                        + ": the request cannot be built: "
                        + bad.getMessage(),
                redaction);
      } catch (Exception ex) {
        if (ctx.terminal() != null) {
          status = InvocationStatus.TERMINAL;
          error = Errors.redact(ctx.terminal(), redaction);
        } else {
          status = InvocationStatus.FAILED;
          error = Errors.describe(ex, redaction);
          serverWait = ctx.retryAfter();
        }
      }
    } catch (LeaseLostException e) {
      p.runningSince = null;
      outcomes.add(new Outcome(gen, source, p, InvocationStatus.FAILED, attempt, null, null, true));
      wake.run();
      return;
    } catch (RuntimeException e) {
      status = InvocationStatus.FAILED;
      error = Errors.describe(e, redaction);
    }
    p.runningSince = null;
    if (status == InvocationStatus.FAILED && abandoned) {
      LOG.warn(
          "effect {} on {}: position {} in lane {} was abandoned by the shutdown ({}); its row"
              + " stays running and it replays at the next start",
          effect.name(),
          source,
          p.position,
          laneName(lane),
          error);
      return;
    }
    Instant now = time.now();
    Instant retryAt =
        status == InvocationStatus.FAILED
            ? now.plus(RetryAfterHeader.raise(BACKOFF.cap(attempt), serverWait))
            : null;
    boolean lost = false;
    try {
      save(held, source, p, status, attempt, error, retryAt, started);
      if (status == InvocationStatus.TERMINAL) store.addCounts(effect.name(), 1, error, 0, now);
    } catch (LeaseLostException e) {
      lost = true;
    } catch (RuntimeException e) {
      // The outcome was not recorded: the position runs again, its calls replay from the journal.
      status = InvocationStatus.FAILED;
      error = "recording the outcome failed: " + Errors.describe(e, redaction);
      retryAt = now.plus(BACKOFF.cap(attempt));
    }
    if (status == InvocationStatus.FAILED)
      LOG.warn(
          "effect {} on {}: position {} in lane {} failed (attempt {}): {}",
          effect.name(),
          source,
          p.position,
          laneName(lane),
          attempt,
          error);
    else if (status == InvocationStatus.TERMINAL)
      LOG.warn(
          "effect {} on {}: position {} failed for good: {}",
          effect.name(),
          source,
          p.position,
          error);
    else if (status == InvocationStatus.DONE && lastError != null)
      // the lane was wedged: say it recovered, so a log read top to bottom ends the story
      LOG.info(
          "effect {} on {}: position {} in lane {} done at attempt {}; the lane runs on",
          effect.name(),
          source,
          p.position,
          laneName(lane),
          attempt);
    if (!lost) countOutcome(status, p, error);
    outcomes.add(new Outcome(gen, source, p, status, attempt, error, retryAt, lost));
    wake.run();
  }

  /**
   * Counts an outcome in the run of failures as the worker records it, not when the reader next
   * applies it: a quarantine then trips at the threshold while the pool still holds invocations,
   * which see {@link #halted} and go back to their lanes unstarted.
   */
  private synchronized void countOutcome(
      InvocationStatus status, SourceLanes.Pending p, @Nullable String error) {
    if (status == InvocationStatus.DONE) failureRun.reset();
    else countFailure(status, p, error);
  }

  private void save(
      Lease held,
      PollerKey source,
      SourceLanes.Pending p,
      InvocationStatus status,
      int attempt,
      @Nullable String error,
      @Nullable Instant retryAt,
      Instant started) {
    store.saveInvocation(
        new InvocationRow(
            effect.name(),
            source,
            p.position,
            p.laneKey(),
            p.type.wire(),
            status,
            attempt,
            error,
            retryAt,
            false,
            effect.version(),
            started,
            time.now()),
        held);
  }

  private boolean applyOutcomes() {
    boolean changed = false;
    Outcome o;
    while ((o = outcomes.poll()) != null) {
      if (o.generation() != generation) continue;
      if (o.leaseLost()) {
        lose("its lease was taken while position " + o.pending().position + " ran");
        outcomes.clear();
        return true;
      }
      SourceLanes s = sources.get(o.source());
      if (s == null) continue;
      changed = true;
      // the run of failures counted each outcome as its worker recorded it (countOutcome)
      if (o.notStarted()) s.untake(o.pending());
      else if (o.status().completed()) s.complete(o.pending()); // done, or terminal
      else s.fail(o.pending(), o.attempt(), String.valueOf(o.error()), o.retryAt());
    }
    return changed;
  }

  /**
   * Logs the persisted quarantine when it differs from the one last seen: at the first look, a
   * quarantine the effect starts with (WARN); later, one set elsewhere (WARN, with its reason) or a
   * release (INFO). A quarantine is told apart from an earlier one by its start time.
   *
   * @return whether the effect is quarantined
   */
  private boolean noteQuarantine(Optional<EffectRecord> record) {
    EffectRecord r = record.filter(EffectRecord::quarantined).orElse(null);
    Instant at = r == null ? null : r.quarantinedAt();
    if (quarantineSeen && Objects.equals(at, quarantinedAt)) return r != null;
    if (r != null) {
      String reason = oneLine(Errors.redact(String.valueOf(r.quarantineReason()), redaction));
      if (!quarantineSeen)
        LOG.warn(
            "effect {} starts quarantined (since {}): {}; nothing of it is dispatched until it is"
                + " released: watukuy effects release CONFIG {} (or Effects.release)",
            effect.name(),
            at,
            reason,
            effect.name());
      else
        LOG.warn(
            "effect {} quarantined (since {}): {}; nothing more is dispatched until it is released",
            effect.name(),
            at,
            reason);
    } else if (quarantineSeen) {
      LOG.info(
          "effect {} released (it was quarantined since {}): dispatching again",
          effect.name(),
          quarantinedAt);
    }
    quarantineSeen = true;
    quarantinedAt = at;
    return r != null;
  }

  /** Text kept to one log line: a reason may hold line breaks. */
  private static String oneLine(String text) {
    return text.replaceAll("\\R", " ");
  }

  /**
   * Counts a failed attempt, to be retried or terminal, in the run of failures with no success
   * between; at the engine's threshold the effect is quarantined (docs/effects.md, "Automatic
   * quarantine"), with a reason that ends with the last error (a terminal one's reason).
   */
  private void countFailure(
      InvocationStatus status, SourceLanes.Pending p, @Nullable String error) {
    int limit = settings.quarantineAfter();
    // Quarantined already: what was in flight then finishes, and neither counts nor trips again.
    if (limit <= 0 || halted) return;
    Instant now = time.now();
    boolean terminal = status == InvocationStatus.TERMINAL;
    int n = failureRun.add(p.laneKey(), p.position, terminal, now);
    if (n < limit) return;
    int terminals = failureRun.terminal();
    String reason =
        "automatic: "
            + n
            + " failed attempts in a row"
            + (terminals == 0 ? "" : " (" + terminals + " of them terminal)")
            + " across "
            + failureRun.lanes()
            + (failureRun.lanes() == 1 ? " lane" : " lanes")
            + " with no success between, from position "
            + failureRun.firstPosition()
            + " at "
            + failureRun.since()
            + " to position "
            + p.position
            + " at "
            + now
            + "; the last"
            + (terminal ? " (terminal): " : ": ")
            + error;
    failureRun.reset();
    store.setQuarantine(effect.name(), reason, now);
    halted = true;
    LOG.warn("effect {} quarantined: {}", effect.name(), reason);
    // logged just above: read back (the store may keep the time coarser) so no pass logs it again
    noteQuarantineQuietly();
  }

  private void noteQuarantineQuietly() {
    Instant at = store.loadEffect(effect.name()).map(EffectRecord::quarantinedAt).orElse(null);
    quarantineSeen = true;
    quarantinedAt = at;
  }

  private boolean saveWatermark(SourceLanes s, Instant now) {
    long w = s.low();
    if (w <= s.watermark) return false;
    store.saveCursor(
        new EffectCursor(effect.name(), s.source, w, s.liveBoundary, effect.schemes(), now),
        lease());
    s.watermark = w;
    return true;
  }

  private Lease lease() {
    Lease held = lease;
    if (held == null)
      throw new IllegalStateException("effect " + effect.name() + " holds no lease");
    return held;
  }

  // ---- services shared by invocations (sealed documents, the HTTP client) ----

  private volatile @Nullable EffectServices services;
  private final Object servicesLock = new Object();

  /**
   * Gives invocations the engine's shared services: the sealing of documents under its {@code
   * secretKey} and its HTTP client. Without them, sealing fails with a message naming the missing
   * secretKey.
   *
   * @param services the services
   * @return this runtime
   */
  public EffectRun<T> services(EffectServices services) {
    this.services = services;
    return this;
  }

  private EffectServices services() {
    EffectServices s = services;
    if (s == null) {
      synchronized (servicesLock) {
        if (services == null) services = EffectServices.defaults(store, time);
        s = services;
      }
    }
    return s;
  }
}
