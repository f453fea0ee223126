package io.watukuy.effects;

import io.watukuy.spi.EffectCursor;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * An effect's standing on one source key as the store alone shows it (docs/effects.md, "States"):
 * what an engine that does not hold the effect's lease reports, and what {@code watukuy effects
 * list} and {@code show} print. The same rule as the running engine's:
 *
 * <ul>
 *   <li>a <b>stuck lane</b> is a row above the watermark that is {@code FAILED} (waiting for its
 *       retry), or {@code RUNNING} with an attempt above 1 and an error recorded (its retry runs);
 *   <li>an <b>in-flight lane</b> is any other {@code RUNNING} row above the watermark whose attempt
 *       started at least {@link InFlightLane#THRESHOLD} ago, such as an attempt 1 whose HTTP call
 *       re-sends; a lane is in one list, never both.
 * </ul>
 *
 * <p>The store cannot judge a key scheme change (the scheme lives in the declaring program), so
 * {@link SourceStatus#blocked()} is false here; {@code lastError} is null.
 *
 * @since 0.1
 */
public final class StoredStatus {
  // Rows read per store call; one unfinished row per lane at most, so a few pages at most.
  private static final int PAGE = 500;

  private static final Set<InvocationStatus> UNFINISHED =
      Set.of(InvocationStatus.FAILED, InvocationStatus.RUNNING);

  private StoredStatus() {}

  /**
   * Whether an invocation row makes its lane stuck: {@code FAILED}, or {@code RUNNING} with an
   * attempt above 1 and an error recorded (a retry after a failure). An attempt-1 {@code RUNNING}
   * row is not stuck even with an error, which is then an HTTP re-send reason.
   *
   * @param row a row above the watermark
   * @return whether its lane is stuck
   */
  public static boolean stuck(InvocationRow row) {
    return row.status() == InvocationStatus.FAILED
        || (row.status() == InvocationStatus.RUNNING && row.attempt() > 1 && row.error() != null);
  }

  /**
   * How long a row's attempt has run: since its {@code startedAt} (the latest attempt's), never
   * negative.
   *
   * @param row a running row
   * @param now the reader's clock
   * @return the duration
   */
  public static Duration runningFor(InvocationRow row, Instant now) {
    return now.isAfter(row.startedAt()) ? Duration.between(row.startedAt(), now) : Duration.ZERO;
  }

  /**
   * The stuck-lane entry of a row {@link #stuck} accepts.
   *
   * @param row a stuck row
   * @param now the reader's clock
   * @return for a failed row its retry in (0 when due) and {@code runningMs} null; for a running
   *     retry {@code retryInMs} 0 and the milliseconds it has run
   */
  public static StuckLane stuckLane(InvocationRow row, Instant now) {
    String lane = row.lane().isEmpty() ? null : row.lane();
    String error = row.error() == null ? "" : row.error();
    if (row.status() == InvocationStatus.RUNNING)
      return new StuckLane(
          lane, row.position(), row.attempt(), error, 0, runningFor(row, now).toMillis());
    long retryIn =
        row.retryAt() == null || !row.retryAt().isAfter(now)
            ? 0
            : Duration.between(now, row.retryAt()).toMillis();
    return new StuckLane(lane, row.position(), row.attempt(), error, retryIn);
  }

  /**
   * Derives one source key's status from the store: the head from the key's {@link
   * PollerState#lastSequence()} (never below the watermark), the lag above the watermark, every
   * stuck lane counted ({@code wedgedLanes}) and the first {@link SourceStatus#MAX_STUCK_LANES}
   * listed, the first {@link InFlightLane#MAX} in-flight lanes, and the pinning position: the
   * lowest position above the watermark not completed, with its row's lane ({@code null} when no
   * row was written for it yet).
   *
   * @param log the store holding the key's poller state
   * @param effects the store's effect tables
   * @param cursor the effect's cursor on the key
   * @param now the reader's clock, for the retry and running times
   * @return the status, with {@code blocked} false and no {@code lastError}
   * @throws io.watukuy.StoreException when the store cannot be reached
   */
  public static SourceStatus of(
      StateStore log, EffectStore effects, EffectCursor cursor, Instant now) {
    long watermark = cursor.watermark();
    long head =
        Math.max(
            watermark, log.loadState(cursor.source()).map(PollerState::lastSequence).orElse(0L));
    List<StuckLane> stuck = new ArrayList<>();
    List<InFlightLane> inFlight = new ArrayList<>();
    int wedged = 0;
    long after = watermark;
    while (true) {
      List<InvocationRow> rows =
          effects.listInvocations(cursor.effect(), cursor.source(), after, UNFINISHED, PAGE);
      for (InvocationRow row : rows) {
        after = row.position();
        if (stuck(row)) {
          wedged++;
          if (stuck.size() < SourceStatus.MAX_STUCK_LANES) stuck.add(stuckLane(row, now));
        } else if (inFlight.size() < InFlightLane.MAX
            && runningFor(row, now).compareTo(InFlightLane.THRESHOLD) >= 0) {
          inFlight.add(
              new InFlightLane(
                  row.lane().isEmpty() ? null : row.lane(),
                  row.position(),
                  row.attempt(),
                  runningFor(row, now).toMillis(),
                  row.error()));
        }
      }
      if (rows.size() < PAGE) break;
    }
    InvocationRow pinRow = null;
    long pin = watermark + 1;
    // Rows above a saved watermark may be complete (a lane ran ahead): the pin is past them.
    for (long from = watermark; pin <= head; ) {
      List<InvocationRow> rows =
          effects.listInvocations(cursor.effect(), cursor.source(), from, Set.of(), PAGE);
      for (InvocationRow row : rows) {
        if (row.position() != pin || !row.status().completed()) {
          if (row.position() == pin) pinRow = row;
          break;
        }
        pin++;
      }
      if (pinRow != null || rows.size() < PAGE || pin <= rows.get(rows.size() - 1).position())
        break;
      from = rows.get(rows.size() - 1).position();
    }
    boolean pinned = pin <= head;
    @Nullable String pinKey = pinRow == null || pinRow.lane().isEmpty() ? null : pinRow.lane();
    return new SourceStatus(
        cursor.source(),
        watermark,
        head,
        head - watermark,
        wedged,
        stuck,
        pinned ? pinKey : null,
        pinned ? pin : null,
        false,
        null,
        inFlight);
  }
}
