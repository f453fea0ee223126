package io.watukuy.store.jdbc;

import io.watukuy.PollerKey;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StateCodec;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The state text of each key as this engine last read or wrote it, and what it parses to: a hint,
 * never a source of truth. A write that reads a key's state again under the lock skips the parse
 * when the text is the same, and the end of an idle poll writes in one statement that only changes
 * the row while the stored text is still this one ({@link Cycles}); a stale or missing entry costs
 * a parse or one statement more, never a wrong write. At most {@value #MAX_KEYS} entries, the least
 * recently put dropped: keys in flight are bounded by the cycle threads.
 */
final class StateTexts {
  /** A text and its parse; {@code state} is always {@code StateCodec.fromJson(text)}. */
  record Known(String text, PollerState state) {}

  private static final int MAX_KEYS = 1024;

  private final Map<PollerKey, Known> byKey =
      Collections.synchronizedMap(
          new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<PollerKey, Known> eldest) {
              return size() > MAX_KEYS;
            }
          });

  /** Remembers what {@code text} parses to. */
  void put(PollerKey key, String text, PollerState state) {
    byKey.put(key, new Known(text, state));
  }

  /** What was last remembered for the key, forgotten; {@code null} when nothing was. */
  @Nullable Known take(PollerKey key) {
    return byKey.remove(key);
  }

  /**
   * {@code text} parsed: the remembered parse when the key's remembered text is the same (this
   * leaves the entry in place), else a fresh parse.
   *
   * @throws io.watukuy.StoreException when the text is not a stored state
   */
  PollerState parse(PollerKey key, String text) {
    Known known = byKey.get(key);
    return known != null && known.text().equals(text) ? known.state() : StateCodec.fromJson(text);
  }

  /** {@code text} parsed ({@link #parse}) and remembered. */
  PollerState parseAndPut(PollerKey key, String text) {
    PollerState state = parse(key, text);
    put(key, text, state);
    return state;
  }
}
