package io.watukuy.cli;

import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The daemon's lines for a store that is down or refuses: one when a key's cycles start failing
 * with a {@link StoreException}, one when a cycle gets through again, none per attempt in between
 * (the engine backs the key off, docs/config.md, "Top level"). Other errors are the caller's, one
 * line each.
 */
final class OutageLines {
  private final Map<PollerKey, Boolean> down = new ConcurrentHashMap<>();

  /**
   * The line a cycle's end calls for, or null: the first store failure of {@code key}, or its first
   * cycle without one after them. Null for a repeated store failure and for every other outcome,
   * which the caller reports as before.
   *
   * @param error the error of the cycle's report, or null
   */
  @Nullable String line(PollerKey key, @Nullable Throwable error) {
    if (error != null && isStore(error)) {
      return down.put(key, Boolean.TRUE) == null
          ? Failures.line(key, error) + "; retrying with backoff"
          : null;
    }
    return down.remove(key) == null ? null : Failures.who(key) + ": store recovered";
  }

  /** Whether {@code error} is a store's: a {@link StoreException} in its cause chain. */
  static boolean isStore(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof StoreException) return true;
      if (t.getCause() == t) break;
    }
    return false;
  }
}
