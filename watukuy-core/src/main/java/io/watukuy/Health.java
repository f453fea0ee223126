package io.watukuy;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.watukuy.internal.Json;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The health verdict of an engine's keys (docs/operations.md, "Health"), from {@link
 * Watukuy#health()}: one {@link KeyHealth} per key of an {@link Inspection}, decided by {@link
 * KeyInspection#health()}, the function {@code watukuy run --once} takes its exit code from.
 *
 * @param at when the inspection behind it was taken
 * @param keys one entry per key, in the inspection's order (poller, then partition)
 * @since 0.3
 */
@JsonPropertyOrder({"at", "healthy", "keys"})
public record Health(Instant at, List<KeyHealth> keys) {
  /**
   * Copies the list.
   *
   * @throws NullPointerException if at or keys is null
   */
  public Health {
    Objects.requireNonNull(at, "at");
    keys = List.copyOf(keys);
  }

  /**
   * The verdict of every key of an inspection.
   *
   * @param inspection from {@link Watukuy#inspect()}
   * @return the verdict
   */
  public static Health of(Inspection inspection) {
    return new Health(
        inspection.at(), inspection.pollers().stream().map(KeyInspection::health).toList());
  }

  /**
   * Whether every key is healthy.
   *
   * @return true when no key has a reason (also when there is no key)
   */
  @JsonProperty("healthy")
  public boolean healthy() {
    return keys.stream().allMatch(KeyHealth::healthy);
  }

  /**
   * The unhealthy keys.
   *
   * @return those with a reason, in order
   */
  public List<KeyHealth> unhealthy() {
    return keys.stream().filter(k -> !k.healthy()).toList();
  }

  /**
   * The verdict of one key.
   *
   * @param key the key
   * @return its entry, or empty when the inspection had none
   */
  public Optional<KeyHealth> key(PollerKey key) {
    return keys.stream().filter(k -> k.key().equals(key)).findFirst();
  }

  /**
   * The JSON form: {@code {"at": iso, "healthy": bool, "keys": [{"poller", "partition", "reasons",
   * "problem"}, ...]}}, for a health endpoint.
   *
   * @return one line of JSON
   */
  public String toJson() {
    return Json.write(this);
  }
}
