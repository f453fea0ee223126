package io.watukuy.sink;

import io.watukuy.PollerKey;
import io.watukuy.spi.Lease;
import java.util.Objects;

/**
 * The key and the lease under which the engine handed the running batch to a sink ({@link
 * Sink#handOff()}): what a sink that writes in the store's own transaction fences its write with,
 * so that an instance that lost the key can write neither its rows nor its acks (docs/sinks.md,
 * "Database tables"; guarantee G5).
 *
 * @param key the batch's poller and partition
 * @param lease the lease the engine held when it handed the batch over
 * @since 0.2
 */
public record HandOff(PollerKey key, Lease lease) {
  /**
   * Checks the arguments.
   *
   * @param key the key
   * @param lease the lease
   * @throws NullPointerException if an argument is null
   */
  public HandOff {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
  }
}
