package io.watukuy.micrometer;

import io.watukuy.PollerKey;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Which value a key's {@code partition} tag gets (docs/operations.md, "Metrics"): the partition's
 * name while its poller has had at most {@link #MAX_TAGGED} partitions in this process, else {@code
 * ""}, the whole poller. The count only grows (removed partitions stay counted), so a poller
 * switches to its whole-poller meters at most once per process and never back: a meter that flipped
 * with every partition coming and going would break every rate over it.
 */
final class PartitionTags {
  /** The most partitions a poller may have and still get per-partition meters. */
  static final int MAX_TAGGED = WatukuyMetrics.PARTITION_TAG_LIMIT;

  private final ConcurrentHashMap<String, Set<String>> seen = new ConcurrentHashMap<>();
  private final Set<String> aggregated = ConcurrentHashMap.newKeySet();
  private final Consumer<String> onAggregate;

  /**
   * @param onAggregate called once per poller, with its name, when it crosses {@link #MAX_TAGGED}
   */
  PartitionTags(Consumer<String> onAggregate) {
    this.onAggregate = onAggregate;
  }

  /**
   * The {@code partition} tag of a key, counting its partition towards its poller's total.
   *
   * @return the partition's name, or {@code ""} for an unpartitioned or aggregated poller
   */
  String tag(PollerKey key) {
    String poller = key.poller();
    if (key.partition().isEmpty() || aggregated.contains(poller)) return "";
    Set<String> partitions = seen.computeIfAbsent(poller, p -> ConcurrentHashMap.newKeySet());
    partitions.add(key.partition());
    if (partitions.size() <= MAX_TAGGED) return key.partition();
    if (aggregated.add(poller)) {
      seen.remove(poller); // no longer needed: the poller stays aggregated
      onAggregate.accept(poller);
    }
    return "";
  }

  /** Whether the poller's meters are whole-poller ones for the rest of the process. */
  boolean aggregated(String poller) {
    return aggregated.contains(poller);
  }
}
