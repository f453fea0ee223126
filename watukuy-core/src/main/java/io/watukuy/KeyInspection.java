package io.watukuy;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.sink.SinkConfig;
import io.watukuy.spi.Lease;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
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
 * @param throttledUntil when the last throttle (a Retry-After) ends, kept until a cycle succeeds or
 *     fails, or null
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
 * @param listing what the full listings left: deletes the delete guard holds, a confirmation,
 *     inconsistent listings in a row (docs/operations.md, "False deletes"), or null
 * @param lastSuccessAt when a cycle of the live lane last succeeded, or null before the first
 * @param staleAfterMs the poller's {@link Poller#staleAfter()} in milliseconds
 * @param stale whether the last success lies more than {@code staleAfterMs} before the inspection
 *     (false before the first success: a key that never succeeded shows its failures instead)
 * @param maxParked the poller's {@link Poller#maxParked()}, or null
 * @param logHeldAbove the lowest watermark of the effects reading this key's event log: the log
 *     keeps every event above it past its retention until those effects have read it
 *     (docs/effects.md, "Retention"); null when no effect reads the key, the poller keeps no log,
 *     or the store keeps no effect tables
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
  "backfill",
  "listing",
  "lastSuccessAt",
  "staleAfterMs",
  "stale",
  "maxParked",
  "logHeldAbove",
  "health"
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
    ScheduleState.@Nullable Backfill backfill,
    ScheduleState.@Nullable Listing listing,
    @Nullable Instant lastSuccessAt,
    long staleAfterMs,
    boolean stale,
    @Nullable Long maxParked,
    @Nullable Long logHeldAbove) {

  /** Copies the maps. */
  public KeyInspection {
    cursors = Map.copyOf(cursors);
    parkedByKind = Map.copyOf(parkedByKind);
  }

  /**
   * Why this key is unhealthy, or {@code null} when it is healthy: the {@link KeyHealth#problem()}
   * of {@link #health()}.
   *
   * @return what is wrong, since when, after how many failures and the last error, in one line (for
   *     example {@code circuit open since 2026-03-01T10:00:00Z, after 5 failures; last error
   *     HttpStatusException: ...}), or {@code null}
   */
  public @Nullable String problem() {
    return health().problem();
  }

  /**
   * Whether this key is healthy, and why not (docs/operations.md, "Health"): the one function that
   * decides, for {@link Watukuy#health()}, {@code run --once}'s exit code and health checks.
   * Unhealthy is a key that cannot make progress until something changes, or has not made any for
   * too long: an open circuit (after repeated failures, or halted by a poison event), failing
   * cycles in a row (a stalled lane among them), deletes held by the delete guard, no successful
   * poll for longer than {@code staleAfter}, and, when the poller sets {@code maxParked}, more
   * parked rows than that. A paused key (by an operator, or because its partition was removed) is
   * healthy whatever else holds; so are throttled, leased and budget-deferred keys unless one of
   * the reasons holds, since they wait by design. A throttle (a 429, or a 503 with Retry-After) is
   * never {@code failing}, also right after failed cycles: the key reads {@code throttled} with the
   * throttle as its {@code lastError}, and only {@code stale} catches a throttle that lasts.
   *
   * @return the reasons in the order of {@link KeyHealth.Reason}, and the first one's line
   */
  @JsonProperty("health")
  public KeyHealth health() {
    if (paused != null) return new KeyHealth(key(), List.of(), null);
    List<KeyHealth.Reason> reasons = new ArrayList<>();
    @Nullable String problem = null;
    String last =
        lastError == null ? "" : "; last error " + lastError.name() + ": " + lastError.message();
    boolean halted = lastError != null && lastError.name().equals("PoisonHalt");
    boolean stalled =
        lastError != null && consecutiveFailures > 0 && STALLS.contains(lastError.name());
    if (circuit != null) {
      reasons.add(halted ? KeyHealth.Reason.POISON_HALT : KeyHealth.Reason.CIRCUIT_OPEN);
      problem =
          (halted ? "halted by a poison event since " : "circuit open since ")
              + circuit.openedAt().truncatedTo(ChronoUnit.SECONDS)
              + (halted ? "" : ", after " + consecutiveFailures + " failure(s) in a row")
              + last;
    }
    if (stalled) reasons.add(KeyHealth.Reason.STALLED);
    // A throttle after failed cycles keeps their count (for the circuit) but ends the streak for
    // health: the vendor answered and said when to come back, so it is not failing now.
    if (consecutiveFailures > 0 && circuit == null && throttledUntil == null) {
      reasons.add(KeyHealth.Reason.FAILING);
      problem =
          consecutiveFailures
              + " failed cycle(s) in a row"
              + (lastError == null
                  ? ""
                  : " since " + lastError.at().truncatedTo(ChronoUnit.SECONDS))
              + last;
    }
    if (listing != null && listing.heldDeletes() > 0) {
      reasons.add(KeyHealth.Reason.DELETES_HELD);
      if (problem == null)
        problem =
            listing.heldDeletes()
                + " deletes held by the delete guard; watukuy confirm-deletes releases them"
                + last;
    }
    if (stale) {
      reasons.add(KeyHealth.Reason.STALE);
      if (problem == null)
        problem =
            "stale: no successful poll since "
                + Objects.requireNonNull(lastSuccessAt).truncatedTo(ChronoUnit.SECONDS)
                + ", longer than staleAfter ("
                // 30m, as the YAML writes it, not Duration's PT30M.
                + SinkConfig.formatDuration(Duration.ofMillis(staleAfterMs))
                + ")"
                + last;
    }
    if (maxParked != null && parked > maxParked) {
      reasons.add(KeyHealth.Reason.PARKED_OVER);
      if (problem == null)
        problem =
            parked
                + " parked row(s), more than maxParked ("
                + maxParked
                + "); watukuy parked lists them";
    }
    reasons.sort(null);
    return new KeyHealth(key(), reasons, problem);
  }

  /** The {@code lastError} names of a stalled lane (docs/operations.md, "Stalled lanes"). */
  private static final Set<String> STALLS =
      Set.of(FetchException.PAGE_REPEATED, "TokenNotAdvancing");

  /**
   * The key this inspection describes.
   *
   * @return the key
   */
  @JsonIgnore
  public PollerKey key() {
    return new PollerKey(poller, partition);
  }
}
