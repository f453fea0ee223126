package io.watukuy.store.redis;

import static io.watukuy.store.redis.ScriptReplies.parseLong;
import static io.watukuy.store.redis.ScriptReplies.status;
import static io.watukuy.store.redis.ScriptReplies.text;

import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import io.watukuy.spi.Lease;
import io.watukuy.store.redis.RedisLike.NoScriptException;
import io.watukuy.store.redis.Scripts.Script;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Runs the scripts of one {@link RedisStore} and checks what they answer: {@code EVALSHA}, then
 * {@code EVAL} when the server forgot the script; every client failure becomes a {@link
 * StoreException} naming the endpoint, the prefix, the operation and the key; a fenced script's
 * {@code LEASE_LOST} becomes a {@link LeaseLostException}. Also keeps the store's closed flag, so
 * nothing runs after {@link RedisStore#close()}.
 */
final class ScriptRunner {
  private final RedisLike redis;
  private final KeyLayout layout;
  private volatile boolean closed;

  ScriptRunner(RedisLike redis, KeyLayout layout) {
    this.redis = redis;
    this.layout = layout;
  }

  KeyLayout layout() {
    return layout;
  }

  String endpoint() {
    return redis.endpoint();
  }

  /** The store's name in messages: {@code RedisStore[<endpoint>, prefix=<prefix>]}. */
  String storeName() {
    return "RedisStore[" + redis.endpoint() + ", prefix=" + layout.prefix() + "]";
  }

  void close() {
    closed = true;
  }

  void checkOpen() {
    if (closed) {
      throw new IllegalStateException(storeName() + " is closed");
    }
  }

  /** Runs a script of {@code key} on its fifteen keys; the script's name is the operation. */
  List<Object> run(Script script, PollerKey key, List<String> args) {
    return run(script, script.name(), key, layout.keys(key), args);
  }

  /**
   * Runs a script on the given keys.
   *
   * @param op the operation, for messages
   * @param key the poller key, for messages; null when the script is about no one key
   * @return the reply, an array
   * @throws StoreException when the client fails or the reply is not an array
   */
  @SuppressWarnings("unchecked")
  List<Object> run(
      Script script, String op, @Nullable PollerKey key, List<String> keys, List<String> args) {
    checkOpen();
    Object reply;
    try {
      try {
        reply = redis.evalsha(script.sha1(), keys, args);
      } catch (NoScriptException e) {
        // A restarted server or SCRIPT FLUSH forgot the script: EVAL sends and caches it.
        reply = redis.eval(script.source(), keys, args);
      }
    } catch (StoreException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new StoreException(
          describe(op, key) + " failed: " + (e.getMessage() != null ? e.getMessage() : e), e);
    }
    if (!(reply instanceof List<?>)) {
      throw new StoreException(
          describe(op, key) + " failed: the script replied " + reply + ", not an array", null);
    }
    return (List<Object>) reply;
  }

  /** {@code redis store <endpoint> (prefix <prefix>): <op> <key>}, the start of every message. */
  String describe(String op, @Nullable PollerKey key) {
    return "redis store "
        + redis.endpoint()
        + " (prefix "
        + layout.prefix()
        + "): "
        + op
        + (key == null ? "" : " " + key);
  }

  /** Throws what a fenced script's reply says went wrong, if anything. */
  void fenced(List<Object> reply, Script script, PollerKey key, Lease lease) {
    if ("LEASE_LOST".equals(status(reply))) {
      String current = text(reply, 1);
      throw new LeaseLostException(
          key, lease.epoch(), current.isEmpty() ? null : parseLong(current, "lease epoch", key));
    }
    expectOk(reply, script, key);
  }

  void expectOk(List<Object> reply, Script script, PollerKey key) {
    if (!"OK".equals(status(reply))) {
      throw new StoreException(
          describe(script.name(), key) + " failed: unexpected reply " + reply, null);
    }
  }

  /** The number at {@code index} of a reply, an integer or its decimal text. */
  long number(List<Object> reply, int index, Script script, PollerKey key) {
    Object o = index < reply.size() ? reply.get(index) : null;
    if (o instanceof Long l) {
      return l;
    }
    if (o instanceof String s) {
      return parseLong(s, script.name(), key);
    }
    throw new StoreException(
        describe(script.name(), key) + " failed: expected a number, but got " + o, null);
  }

  /** Runs a script that answers one number, and returns it. */
  long count(Script script, PollerKey key, List<String> args) {
    return number(run(script, key, args), 0, script, key);
  }
}
