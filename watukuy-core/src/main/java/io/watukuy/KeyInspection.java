package io.watukuy;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.spi.Lease;
import java.time.Instant;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What {@link Watukuy#inspect()} reports for one key, with the field names of the stored schedule
 * (docs/architecture.md, "ScheduleState") where it has them.
 *
 * @param poller the poller name
 * @param partition the partition, {@code ""} when unpartitioned
 * @param state the state-machine state
 * @param paused why the key is paused, or null
 * @param nextDueAt when the live lane is next due, or null for now
 * @param dueReason why it is due then, or null
 * @param intervalMs the polling interval in milliseconds
 * @param consecutiveFailures failed cycles in a row
 * @param throttledUntil a Retry-After not yet passed, or null
 * @param circuit the open circuit, or null
 * @param lease the stored lease (possibly expired), or null
 * @param cursors the stored cursor of each lane, parsed ({@code cursors.live})
 * @param lagMs for timestamp pollers, now minus the live watermark in milliseconds, else null
 * @param outboxPending pending outbox rows
 * @param parked parked rows in total
 * @param parkedByKind parked rows by kind ({@code poison}, {@code invalid})
 * @param items rows in the item snapshot
 * @param lastPoll the last cycle's summary, or null
 * @param lastError the last error, or null
 * @param lastReconcileAt when the last reconcile completed, or null
 * @param backfill the active backfill, or null
 * @since 0.1
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({
  "poller",
  "partition",
  "state",
  "paused",
  "nextDueAt",
  "dueReason",
  "intervalMs",
  "consecutiveFailures",
  "throttledUntil",
  "circuit",
  "lease",
  "cursors",
  "lagMs",
  "outboxPending",
  "parked",
  "parkedByKind",
  "items",
  "lastPoll",
  "lastError",
  "lastReconcileAt",
  "backfill"
})
public record KeyInspection(
    String poller,
    String partition,
    ScheduleState.Status state,
    ScheduleState.@Nullable PauseReason paused,
    @Nullable Instant nextDueAt,
    ScheduleState.@Nullable DueReason dueReason,
    long intervalMs,
    int consecutiveFailures,
    @Nullable Instant throttledUntil,
    ScheduleState.@Nullable Circuit circuit,
    @Nullable Lease lease,
    Map<String, JsonNode> cursors,
    @Nullable Long lagMs,
    long outboxPending,
    long parked,
    Map<String, Long> parkedByKind,
    long items,
    ScheduleState.@Nullable LastPoll lastPoll,
    ScheduleState.@Nullable LastError lastError,
    @Nullable Instant lastReconcileAt,
    ScheduleState.@Nullable Backfill backfill) {

  /** Copies the maps. */
  public KeyInspection {
    cursors = Map.copyOf(cursors);
    parkedByKind = Map.copyOf(parkedByKind);
  }

  /**
   * The key this inspection describes.
   *
   * @return the key
   */
  public PollerKey key() {
    return new PollerKey(poller, partition);
  }
}
