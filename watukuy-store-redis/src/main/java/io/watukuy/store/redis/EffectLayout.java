package io.watukuy.store.redis;

import io.watukuy.PollerKey;
import java.util.ArrayList;
import java.util.List;

/**
 * The names of the Redis keys of the effect tables (docs/stores.md, "RedisStore and
 * RedisBudgetStore"). Every key of one effect is {@code <prefix>{effect:<name>}:<part>}, with the
 * name escaped as in {@link KeyLayout#escape}: the shared hash tag puts an effect's lease, record,
 * cursors and every table of its invocations and journal in one cluster slot, so a fenced script
 * checks the lease and writes the rows at once. The tag holds no {@code |} (it is escaped), and a
 * poller key's tag always holds one, so the two kinds of tags never meet.
 *
 * <p>The parts of a source key end in the source's tag ({@link KeyLayout#tag}): {@code
 * invocations:<source>} and the others below. Part names hold no {@code :}, so the source that
 * follows the part's colon cannot make two keys alike.
 */
final class EffectLayout {

  /** The parts of an effect, in the order its scripts receive them as {@code KEYS[1..5]}. */
  static final List<String> PARTS =
      List.of(
          "lease", // hash: owner, epoch, expires (epoch ms), counter, listed
          "record", // hash: quarantinedAt, quarantineReason, terminalSkips, lastTerminalError,
          //           latestCollapsed, updatedAt
          "cursors", // hash: source tag -> cursor
          "sources", // set: source tags whose <prefix>{<source>}:effects mirror names the effect
          // set: source tags where the effect wrote an invocation row or a journal entry, so a
          // forget finds rows on a source that has no cursor yet
          "written");

  /** The parts of one source of an effect, {@code KEYS[6..10]}, each followed by the source. */
  static final List<String> SOURCE_PARTS =
      List.of(
          "invocations", // hash: position member -> invocation row
          "positions", // sorted set, score 0: position members, in lexical (= numeric) order
          "completed", // sorted set: completed rows' position members scored by update time (ms)
          "journal", // hash: position member ':' call key -> journal entry
          "calls"); // sorted set, score 0: position member ':' 10-digit ordinal ':' call key

  private final String prefix;

  EffectLayout(String prefix) {
    this.prefix = prefix;
  }

  private String base(String effect) {
    return prefix + "{effect:" + KeyLayout.escape(effect) + "}:";
  }

  /** The keys of an effect, in {@link #PARTS} order. */
  List<String> keys(String effect) {
    String base = base(effect);
    return PARTS.stream().map(p -> base + p).toList();
  }

  /**
   * The keys of an effect and of one of its sources: {@link #PARTS}, then {@link #SOURCE_PARTS}.
   */
  List<String> keys(String effect, PollerKey source) {
    String base = base(effect);
    String tag = KeyLayout.tag(source);
    List<String> keys = new ArrayList<>(keys(effect));
    for (String part : SOURCE_PARTS) {
      keys.add(base + part + ":" + tag);
    }
    return List.copyOf(keys);
  }

  /**
   * The hash mirroring the watermark of each effect with a cursor on {@code source} (effect →
   * watermark member, a space, the lease epoch), in the source's own slot.
   */
  String sourceEffects(PollerKey source) {
    return prefix + "{" + KeyLayout.tag(source) + "}:effects";
  }

  /** The set of every effect's name (listEffects); its own slot. */
  String effects() {
    return prefix + "effects";
  }

  /** The hash of subject keys, one field per subject; its own slot. */
  String subjects() {
    return prefix + "subjects";
  }
}
