package io.watukuy.internal;

import io.watukuy.HttpResult;
import org.jspecify.annotations.Nullable;

/**
 * What one live-lane cycle of a key did, as far as the schedule cares: the input of {@link
 * ScheduleMachine#afterCycle}.
 *
 * @param pages pages fetched, 0 or more
 * @param items items fetched in the cycle, all pages, 0 or more
 * @param events events committed, 0 or more; more than 0 makes the cycle "with events" for AIMD
 * @param truncated the incremental listing was cut by {@code maxPagesPerCycle} or the tick deadline
 *     with its progress kept in the cursor, so the key is due again at once (catch-up)
 * @param notModified the cycle ended on a trusted 304; counts as idle
 * @param durationMs elapsed time of the cycle in milliseconds, 0 or more
 * @param halted a poison event was parked under {@code delivery.poison.action = halt}
 * @param error the exception that ended the cycle, or {@code null} when it completed
 * @param lastResponse the last HTTP response the helper saw in the cycle (2xx, 304 or error
 *     status), or {@code null}; its rate-limit fields pace the next wait, and a 429 in it throttles
 *     the key even when fetch code caught the exception
 */
record CycleOutcome(
    int pages,
    int items,
    int events,
    boolean truncated,
    boolean notModified,
    long durationMs,
    boolean halted,
    @Nullable RuntimeException error,
    @Nullable HttpResult lastResponse) {

  /**
   * Checks the counts.
   *
   * @throws IllegalArgumentException if a count or the duration is negative
   */
  public CycleOutcome {
    if (pages < 0 || items < 0 || events < 0 || durationMs < 0)
      throw new IllegalArgumentException(
          "counts must be >= 0, but were pages "
              + pages
              + ", items "
              + items
              + ", events "
              + events
              + ", durationMs "
              + durationMs);
  }
}
