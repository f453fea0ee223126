package io.watukuy;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The health of one key (docs/operations.md, "Health"): healthy, or the reasons it is not. What
 * {@link KeyInspection#health()} decides, {@link Health} gathers, and {@code watukuy run --once}
 * turns into its exit code.
 *
 * @param key the key
 * @param reasons why the key is unhealthy, in the order of {@link Reason}; empty when it is healthy
 * @param problem the first reason in one line (what, since when, after how many failures, the last
 *     error), or null when healthy; may hold what the vendor wrote, redact it before printing
 * @since 0.3
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({"poller", "partition", "healthy", "reasons", "problem"})
public record KeyHealth(PollerKey key, List<Reason> reasons, @Nullable String problem) {
  /**
   * Copies the reasons.
   *
   * @throws NullPointerException if key or reasons is null
   * @throws IllegalArgumentException if there are reasons without a problem, or a problem without
   *     reasons
   */
  public KeyHealth {
    Objects.requireNonNull(key, "key");
    reasons = List.copyOf(reasons);
    if (reasons.isEmpty() != (problem == null))
      throw new IllegalArgumentException(
          "a problem goes with reasons, but was " + reasons + " and " + problem);
  }

  /**
   * Whether the key is healthy.
   *
   * @return true when there is no reason
   */
  @JsonProperty("healthy")
  public boolean healthy() {
    return reasons.isEmpty();
  }

  /** The key, as in the inspection; in JSON as {@code poller} and {@code partition}. */
  @JsonIgnore
  @Override
  public PollerKey key() {
    return key;
  }

  /**
   * The poller name.
   *
   * @return the key's poller
   */
  @JsonProperty("poller")
  public String poller() {
    return key.poller();
  }

  /**
   * The partition.
   *
   * @return the key's partition, {@code ""} when unpartitioned
   */
  @JsonProperty("partition")
  public String partition() {
    return key.partition();
  }

  /**
   * Why a key is unhealthy: a bounded set, for a meter's tag or a health endpoint's JSON (in lower
   * camel case there). A paused key has none.
   */
  public enum Reason {
    /** The circuit is open after failed cycles in a row ({@link CircuitPolicy}). */
    CIRCUIT_OPEN("circuitOpen"),
    /** A poison event halted the key ({@link PoisonPolicy.Action#HALT}). */
    POISON_HALT("poisonHalt"),
    /**
     * The last failed cycle was a stalled lane: {@code PageRepeated} or {@code TokenNotAdvancing}.
     */
    STALLED("stalled"),
    /**
     * The last cycles failed and the key backs off (a stall among them or not). A throttle (a 429,
     * or a 503 with Retry-After) is not a failed cycle: a throttled key is healthy until {@link
     * #STALE}.
     */
    FAILING("failing"),
    /** The delete guard holds deletes that an operator must confirm. */
    DELETES_HELD("deletesHeld"),
    /** No successful poll for longer than the poller's {@link Poller#staleAfter()}. */
    STALE("stale"),
    /** More parked rows than the poller's {@link Poller#maxParked()}. */
    PARKED_OVER("parkedOver");

    private final String wire;

    Reason(String wire) {
      this.wire = wire;
    }

    /**
     * The lower camel case name used in JSON.
     *
     * @return for example {@code circuitOpen}
     */
    @JsonValue
    public String wire() {
      return wire;
    }
  }
}
