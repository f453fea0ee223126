package io.watukuy;

import java.util.Objects;

/**
 * One unit of polling: a poller and one of its partitions. Each key has its own lease, cursors,
 * item snapshot, outbox and schedule. {@code partition} is {@code ""} for an unpartitioned poller.
 * Ordered by poller, then partition ({@link String#compareTo}).
 *
 * @param poller the poller name
 * @param partition the partition, {@code ""} for an unpartitioned poller
 * @since 0.1
 */
public record PollerKey(String poller, String partition) implements Comparable<PollerKey> {
  /**
   * Creates a key. Names are not validated here; {@link Poller} validates them.
   *
   * @param poller the poller name
   * @param partition the partition, {@code ""} for an unpartitioned poller
   * @throws NullPointerException if an argument is null
   */
  public PollerKey {
    Objects.requireNonNull(poller, "poller");
    Objects.requireNonNull(partition, "partition");
  }

  /**
   * The key of an unpartitioned poller.
   *
   * @param poller the poller name
   * @return {@code (poller, "")}
   */
  public static PollerKey of(String poller) {
    return new PollerKey(poller, "");
  }

  /**
   * The key of one partition of a poller.
   *
   * @param poller the poller name
   * @param partition the partition
   * @return {@code (poller, partition)}
   */
  public static PollerKey of(String poller, String partition) {
    return new PollerKey(poller, partition);
  }

  @Override
  public int compareTo(PollerKey o) {
    int c = poller.compareTo(o.poller);
    return c != 0 ? c : partition.compareTo(o.partition);
  }

  /**
   * The form used in messages and logs.
   *
   * @return {@code poller}, or {@code poller[partition]} for a partition
   */
  @Override
  public String toString() {
    return partition.isEmpty() ? poller : poller + "[" + partition + "]";
  }
}
