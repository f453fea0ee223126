package io.watukuy.effects.internal;

import io.watukuy.EventType;
import io.watukuy.PollerKey;
import io.watukuy.effects.InFlightLane;
import io.watukuy.effects.SourceStatus;
import io.watukuy.effects.StuckLane;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.LoggedEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * An effect's lanes on one source key (docs/effects.md, "Position"): the events read and not yet
 * complete, queued per lane, and the low-water mark they allow. Only positions not yet complete are
 * held, so a lane that runs ahead of a wedge costs nothing once its events are done. Not
 * thread-safe: the effect's reader owns it.
 */
final class SourceLanes {
  /** An event read and not yet complete in its lane. */
  static final class Pending {
    final long position;
    final LoggedEvent logged;
    final EventType type;

    /** {@code scheme:value}, or {@code null} when the key could not be resolved. */
    final @Nullable String lane;

    final @Nullable String keyError;
    int attempt;
    @Nullable Instant retryAt;
    @Nullable String error;

    /** When the running attempt started, or null while it does not run; set by its worker. */
    volatile @Nullable Instant runningSince;

    /** The running attempt's number. */
    volatile int runningAttempt;

    /** The running attempt's last re-send error (docs/effects.md, "HTTP calls"), or null. */
    volatile @Nullable String runningError;

    Pending(LoggedEvent logged, EventType type, @Nullable String lane, @Nullable String keyError) {
      this.position = logged.sequence();
      this.logged = logged;
      this.type = type;
      this.lane = lane;
      this.keyError = keyError;
    }

    /** Takes the attempt count and backoff of a row left by an earlier run. */
    void resume(InvocationRow row) {
      attempt = row.attempt();
      error = row.error();
      retryAt = row.retryAt();
    }

    String laneKey() {
      return lane == null ? "" : lane;
    }
  }

  private static final class Lane {
    final ArrayDeque<Pending> queue = new ArrayDeque<>();
    boolean busy;
  }

  final PollerKey source;

  /** The watermark last saved. */
  long watermark;

  /** The highest position read. */
  long head;

  /**
   * The key's log head as the store last reported it ({@code PollerState.lastSequence}), or 0: the
   * reader holds at most {@code readAhead} events, so {@link #head} alone would cap the lag.
   */
  long logHead;

  final @Nullable Long liveBoundary;

  /** Why the key is blocked (a key scheme change), or {@code null}. */
  @Nullable String blocked;

  @Nullable String lastError;
  private final TreeMap<Long, Pending> incomplete = new TreeMap<>();
  private final Map<String, Lane> lanes = new HashMap<>();
  private final Set<Long> doneAbove = new HashSet<>();
  private final Map<Long, InvocationRow> unfinishedAbove = new HashMap<>();

  // Per event type and lane, the highest position an earlier run left a row at: see superseded().
  private final Map<String, Long> rowNewest = new HashMap<>();

  SourceLanes(PollerKey source, long watermark, @Nullable Long liveBoundary) {
    this.source = source;
    this.watermark = watermark;
    this.head = watermark;
    this.liveBoundary = liveBoundary;
  }

  /** Remembers a row an earlier run left above the watermark. */
  void restore(InvocationRow row) {
    if (row.status().completed()) doneAbove.add(row.position());
    else unfinishedAbove.put(row.position(), row);
    rowNewest.merge(row.eventType() + " " + row.lane(), row.position(), Math::max);
  }

  /**
   * Whether an earlier run started a later event of {@code p}'s type in {@code p}'s lane while
   * leaving no row at {@code p} (docs/effects.md, "Latest and live arms"). A lane runs in order and
   * a row is written when an invocation starts, so such an event was folded by that run, and
   * counted then: re-read after a restart below the watermark, it passes again without running (the
   * later event supersedes it) and without being counted twice.
   */
  boolean superseded(Pending p) {
    Long newest = rowNewest.get(p.type.wire() + " " + p.laneKey());
    return newest != null && newest > p.position && !unfinishedAbove.containsKey(p.position);
  }

  /** Whether an earlier run left an unfinished row (running or failed) at {@code position}. */
  boolean leftUnfinished(long position) {
    return unfinishedAbove.containsKey(position);
  }

  /** Whether an earlier run completed {@code position} in its lane; forgets it. */
  boolean completedBefore(long position) {
    head = Math.max(head, position);
    return doneAbove.remove(position);
  }

  /** Passes a position that needs no invocation (no arm for its type). */
  void pass(long position) {
    head = Math.max(head, position);
  }

  /** Queues an event in its lane, resuming the row an earlier run left for it. */
  void accept(Pending p) {
    InvocationRow row = unfinishedAbove.remove(p.position);
    if (row != null) p.resume(row);
    incomplete.put(p.position, p);
    lanes.computeIfAbsent(p.laneKey(), k -> new Lane()).queue.add(p);
    head = Math.max(head, p.position);
  }

  int held() {
    return incomplete.size();
  }

  /** Takes every lane whose head may run now and marks it busy. */
  List<Pending> takeDue(Instant now) {
    List<Pending> due = new ArrayList<>();
    for (Lane lane : lanes.values()) {
      Pending p = lane.queue.peek();
      if (lane.busy || p == null) continue;
      if (p.retryAt != null && now.isBefore(p.retryAt)) continue;
      lane.busy = true;
      due.add(p);
    }
    due.sort(Comparator.comparingLong(p -> p.position));
    return due;
  }

  /** Hands back a lane taken by {@link #takeDue} that did not run. */
  void untake(Pending p) {
    Lane lane = lanes.get(p.laneKey());
    if (lane != null) lane.busy = false;
  }

  /** The position completed (done, terminal or skipped): its lane moves on. */
  void complete(Pending p) {
    Lane lane = lanes.get(p.laneKey());
    if (lane == null || lane.queue.peek() != p) return;
    lane.queue.poll();
    lane.busy = false;
    if (lane.queue.isEmpty()) lanes.remove(p.laneKey());
    incomplete.remove(p.position);
  }

  /** The position failed: its lane parks until {@code retryAt}. */
  void fail(Pending p, int attempt, String error, Instant retryAt) {
    p.attempt = attempt;
    p.error = error;
    p.retryAt = retryAt;
    Lane lane = lanes.get(p.laneKey());
    if (lane != null) lane.busy = false;
  }

  /** The failed head of a lane that is not running, or null. */
  @Nullable Pending parkedHead(long position) {
    Pending p = incomplete.get(position);
    if (p == null || p.attempt == 0) return null;
    Lane lane = lanes.get(p.laneKey());
    return lane != null && !lane.busy && lane.queue.peek() == p ? p : null;
  }

  /**
   * The failed heads of the lanes that are not running, lowest position first: the lanes a retry
   * now can make due (docs/effects.md, "Retry now").
   */
  List<Pending> parkedHeads() {
    List<Pending> out = new ArrayList<>();
    for (Lane lane : lanes.values()) {
      Pending p = lane.queue.peek();
      if (!lane.busy && p != null && p.attempt > 0) out.add(p);
    }
    out.sort(Comparator.comparingLong(p -> p.position));
    return out;
  }

  boolean anyParked() {
    for (Lane lane : lanes.values()) {
      Pending p = lane.queue.peek();
      if (!lane.busy && p != null && p.attempt > 0) return true;
    }
    return false;
  }

  /** The low-water mark the lanes allow: below the first incomplete position, else the head. */
  long low() {
    long w = incomplete.isEmpty() ? head : incomplete.firstKey() - 1;
    return Math.max(w, watermark);
  }

  /** When the earliest parked lane is due, or null. */
  @Nullable Instant nextDue() {
    Instant next = null;
    for (Lane lane : lanes.values()) {
      Pending p = lane.queue.peek();
      if (lane.busy || p == null || p.retryAt == null) continue;
      if (next == null || p.retryAt.isBefore(next)) next = p.retryAt;
    }
    return next;
  }

  SourceStatus status(Instant now) {
    List<StuckLane> stuck = new ArrayList<>();
    int wedged = 0;
    for (Lane lane : lanes.values()) {
      Pending p = lane.queue.peek();
      if (p == null || !stuck(p)) continue;
      wedged++;
      Instant since = p.runningSince;
      if (lane.busy && since != null) {
        // Its retry attempt runs: still stuck (docs/effects.md, "States"), shown with the attempt
        // and error its RUNNING row holds, so the store's readers say the same.
        String error = p.runningError != null ? p.runningError : p.error;
        long running = Math.max(0, Duration.between(since, now).toMillis());
        stuck.add(new StuckLane(p.lane, p.position, p.runningAttempt, error, 0, running));
        continue;
      }
      long retryIn =
          p.retryAt == null ? 0 : Math.max(0, Duration.between(now, p.retryAt).toMillis());
      stuck.add(new StuckLane(p.lane, p.position, p.attempt, p.error, retryIn));
    }
    stuck.sort(Comparator.comparingLong(StuckLane::position));
    if (stuck.size() > SourceStatus.MAX_STUCK_LANES)
      stuck = stuck.subList(0, SourceStatus.MAX_STUCK_LANES);
    Map.Entry<Long, Pending> pin = incomplete.firstEntry();
    long position = low();
    long top = Math.max(head, logHead);
    return new SourceStatus(
        source,
        position,
        top,
        top - position,
        wedged,
        stuck,
        pin == null ? null : pin.getValue().lane,
        pin == null ? null : pin.getKey(),
        blocked != null,
        blocked != null ? blocked : lastError,
        inFlight(now));
  }

  /**
   * Whether the lane of head {@code p} is stuck: an attempt of it failed, whether its retry waits
   * or runs (docs/effects.md, "States").
   */
  private static boolean stuck(Pending p) {
    return p.attempt > 0 && p.error != null;
  }

  /**
   * The busy lanes that are not stuck and whose running attempt started at least {@link
   * InFlightLane#THRESHOLD} before {@code now}, lowest position first, at most {@link
   * InFlightLane#MAX}. A stuck lane's running retry is listed with its stuck lane, not here.
   */
  private List<InFlightLane> inFlight(Instant now) {
    List<InFlightLane> out = new ArrayList<>();
    for (Lane lane : lanes.values()) {
      Pending p = lane.queue.peek();
      Instant since = p == null ? null : p.runningSince;
      if (!lane.busy || since == null || stuck(p)) continue;
      Duration running = Duration.between(since, now);
      if (running.compareTo(InFlightLane.THRESHOLD) < 0) continue;
      String error = p.runningError != null ? p.runningError : p.error;
      out.add(new InFlightLane(p.lane, p.position, p.runningAttempt, running.toMillis(), error));
    }
    out.sort(Comparator.comparingLong(InFlightLane::position));
    return out.size() > InFlightLane.MAX ? out.subList(0, InFlightLane.MAX) : out;
  }
}
