package io.watukuy;

import java.util.Objects;

/**
 * One unit of polling: a poller and one of its partitions. Each key has its own lease, cursors,
 * item snapshot, outbox and schedule. {@code partition} is {@code ""} for an unpartitioned poller.
 *
 * @since 0.1
 */
public record PollerKey(String poller, String partition) implements Comparable<PollerKey> {
  public PollerKey {
    Objects.requireNonNull(poller, "poller");
    Objects.requireNonNull(partition, "partition");
  }

  /** The key of an unpartitioned poller. */
  public static PollerKey of(String poller) {
    return new PollerKey(poller, "");
  }

  public static PollerKey of(String poller, String partition) {
    return new PollerKey(poller, partition);
  }

  @Override
  public int compareTo(PollerKey o) {
    int c = poller.compareTo(o.poller);
    return c != 0 ? c : partition.compareTo(o.partition);
  }

  @Override
  public String toString() {
    return partition.isEmpty() ? poller : poller + "[" + partition + "]";
  }
}
