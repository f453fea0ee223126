package io.watukuy.store.redis;

import io.watukuy.PollerKey;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Keyset pagination over the identities of one key for {@link RedisStore#streamIdentities}: each
 * batch is one {@link Scripts#STREAM_IDENTITIES} call ({@code ZRANGEBYLEX}) starting after the last
 * identity of the previous batch, made when the stream asks for it; nothing stays open between
 * batches. Not thread-safe, like any iterator.
 */
final class IdentityBatches implements Iterator<List<String>> {
  private final ScriptRunner scripts;
  private final PollerKey key;
  private final int batchSize;
  private String start = "-";
  private @Nullable List<String> next;
  private boolean exhausted;

  IdentityBatches(ScriptRunner scripts, PollerKey key, int batchSize) {
    this.scripts = scripts;
    this.key = key;
    this.batchSize = batchSize;
  }

  @Override
  public boolean hasNext() {
    if (next == null && !exhausted) {
      List<String> batch =
          ScriptReplies.texts(
              scripts.run(
                  Scripts.STREAM_IDENTITIES, key, List.of(start, Integer.toString(batchSize))));
      // A short batch is the last one; stopping here saves a call that would find nothing.
      exhausted = batch.size() < batchSize;
      if (!batch.isEmpty()) {
        next = List.copyOf(batch);
        start = "(" + batch.get(batch.size() - 1);
      }
    }
    return next != null;
  }

  @Override
  public List<String> next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    List<String> batch = Objects.requireNonNull(next);
    next = null;
    return batch;
  }
}
