package io.watukuy;

import io.watukuy.internal.Json;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A snapshot of every key of an engine's pollers (Guarantees G7: {@code parked}, {@code
 * outboxPending}). Serializable to JSON with {@link #toJson()} for the command line.
 *
 * @param at when the snapshot was taken
 * @param pollers one entry per key, sorted by poller then partition
 * @since 0.1
 */
public record Inspection(Instant at, List<KeyInspection> pollers) {
  /** Copies the list. */
  public Inspection {
    pollers = List.copyOf(pollers);
  }

  /**
   * The entry of one key.
   *
   * @param key the key
   * @return its inspection, or empty when the key has no state yet
   */
  public Optional<KeyInspection> key(PollerKey key) {
    return pollers.stream().filter(k -> k.key().equals(key)).findFirst();
  }

  /**
   * The entry of an unpartitioned poller.
   *
   * @param poller the poller name
   * @return its inspection, or empty
   */
  public Optional<KeyInspection> poller(String poller) {
    return key(PollerKey.of(poller));
  }

  /**
   * The JSON form: {@code {"at": iso, "pollers": [ {...}, ... ]}}, instants as ISO-8601 strings.
   *
   * @return one line of JSON
   */
  public String toJson() {
    return Json.write(this);
  }
}
