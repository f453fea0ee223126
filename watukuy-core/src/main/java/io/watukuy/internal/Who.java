package io.watukuy.internal;

import io.watukuy.PollerKey;

/**
 * How a log line names a key: {@code poller orders} or {@code poller orders partition eu}, the way
 * {@link io.watukuy.FetchException} messages do, so that every warning starts {@code poller NAME:}
 * and a reader can grep for a poller.
 */
final class Who {
  private Who() {}

  static String key(PollerKey key) {
    return "poller "
        + key.poller()
        + (key.partition().isEmpty() ? "" : " partition " + key.partition());
  }
}
