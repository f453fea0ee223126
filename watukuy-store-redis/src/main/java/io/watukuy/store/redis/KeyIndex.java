package io.watukuy.store.redis;

import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The set {@code <prefix>keys} that lists the poller keys with stored state, for {@link
 * RedisStore#listKeys}. It has its own cluster slot, so no script of a key can write it: a key is
 * added by a separate call after its first state write, which then marks the state hash ({@code
 * indexed}); a key whose listing failed is listed by its next state write.
 */
final class KeyIndex {
  private static final Logger log = LoggerFactory.getLogger(RedisStore.class);

  private final ScriptRunner scripts;

  KeyIndex(ScriptRunner scripts) {
    this.scripts = scripts;
  }

  private List<String> indexKey() {
    return List.of(scripts.layout().index());
  }

  /**
   * The listed keys whose state still exists (one short script per key, so a cluster client routes
   * each to its slot), sorted.
   */
  List<PollerKey> list(@Nullable String poller) {
    List<Object> tags = scripts.run(Scripts.INDEX_MEMBERS, "listKeys", null, indexKey(), List.of());
    List<PollerKey> keys = new ArrayList<>();
    for (String tag : ScriptReplies.texts(tags)) {
      PollerKey key = KeyLayout.parseTag(tag);
      if (poller != null && !poller.equals(key.poller())) {
        continue;
      }
      if (scripts.count(Scripts.STATE_EXISTS, key, List.of()) == 1) {
        keys.add(key);
      }
    }
    Collections.sort(keys);
    return List.copyOf(keys);
  }

  /**
   * Adds the key to the index when a state write reported it unmarked, then marks it. A failure
   * here is logged, not thrown: the write itself succeeded, and the next state write of the key
   * tries again because the mark is still missing.
   *
   * @param reply the state write's reply: {@code OK}, then {@code 1} when the key is unmarked
   */
  void addIfNeeded(PollerKey key, List<Object> reply) {
    if (reply.size() < 2 || !"1".equals(reply.get(1))) {
      return;
    }
    try {
      scripts.run(Scripts.INDEX_ADD, "index", key, indexKey(), List.of(KeyLayout.tag(key)));
      scripts.run(Scripts.MARK_INDEXED, key, List.of());
    } catch (StoreException e) {
      log.warn(
          "{}: the key was written but not yet listed; the next write lists it",
          scripts.storeName(),
          e);
    }
  }

  /** Unmarks the key's state, then takes the key out of the index. */
  void remove(PollerKey key) {
    scripts.expectOk(
        scripts.run(Scripts.UNMARK_INDEXED, key, List.of()), Scripts.UNMARK_INDEXED, key);
    scripts.run(Scripts.INDEX_REMOVE, "deleteKey", key, indexKey(), List.of(KeyLayout.tag(key)));
  }
}
