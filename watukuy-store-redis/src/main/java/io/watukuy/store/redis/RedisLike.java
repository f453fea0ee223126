package io.watukuy.store.redis;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The part of a Redis client that {@link RedisStore} uses: running a Lua script by its SHA-1
 * ({@code EVALSHA}) or by its source ({@code EVAL}). Everything the store reads or writes goes
 * through these two calls, so adapting another client (Jedis, a cluster client, a test double) is a
 * page of code. {@link LettuceRedis} adapts a Lettuce connection.
 *
 * <p><b>Replies.</b> Both calls return the script's reply with the usual Redis mapping: an array as
 * a {@link List} (nested arrays as nested lists), a bulk or status string as a {@link String}
 * decoded from UTF-8, an integer as a {@link Long}, a nil as {@code null}. The store's scripts
 * always reply with an array of strings and integers. Keys and arguments are sent as UTF-8.
 *
 * <p><b>Routing.</b> Every script the store runs names all its keys in {@code keys}, and all keys
 * of one call share a hash tag, so a cluster client can route each call to one node by its first
 * key.
 *
 * <p><b>Failures.</b> {@link #evalsha} throws {@link NoScriptException} when the server does not
 * know the script (the store then calls {@link #eval}, which also caches it). Any other failure
 * (connection refused or lost, timeout, an error reply) is thrown as an unchecked exception of the
 * client's own type; the store wraps it in a {@link io.watukuy.StoreException} naming {@link
 * #endpoint()} and the operation. Implementations never retry a call on their own after an error
 * the caller saw, and must be safe for use from several threads. The store never opens or closes
 * the underlying connection.
 *
 * <p>An adapter for Jedis, for example, is this much:
 *
 * <pre>{@code
 * final class JedisRedis implements RedisLike {
 *   private final JedisPooled jedis;
 *   private final String endpoint;
 *   JedisRedis(JedisPooled jedis, String endpoint) { this.jedis = jedis; this.endpoint = endpoint; }
 *   public Object evalsha(String sha1, List<String> keys, List<String> args) {
 *     try {
 *       return jedis.evalsha(sha1, keys, args);
 *     } catch (JedisNoScriptException e) {
 *       throw new NoScriptException(sha1, e);
 *     }
 *   }
 *   public Object eval(String script, List<String> keys, List<String> args) {
 *     return jedis.eval(script, keys, args);
 *   }
 *   public String endpoint() { return endpoint; }
 * }
 * }</pre>
 *
 * @since 0.1
 */
public interface RedisLike {

  /**
   * Runs a script the server has cached ({@code EVALSHA sha1 numkeys keys... args...}).
   *
   * @param sha1 the lowercase hex SHA-1 of the script's UTF-8 source
   * @param keys the keys the script touches ({@code KEYS}), all with one hash tag
   * @param args the script's arguments ({@code ARGV})
   * @return the script's reply, mapped as described above
   * @throws NoScriptException when the server has no script with that SHA-1
   * @throws RuntimeException of the client's type on any other failure
   */
  @Nullable Object evalsha(String sha1, List<String> keys, List<String> args);

  /**
   * Runs a script from its source ({@code EVAL script numkeys keys... args...}); the server caches
   * it, so later {@link #evalsha} calls find it.
   *
   * @param script the Lua source
   * @param keys the keys the script touches ({@code KEYS}), all with one hash tag
   * @param args the script's arguments ({@code ARGV})
   * @return the script's reply, mapped as described above
   * @throws RuntimeException of the client's type on any failure
   */
  @Nullable Object eval(String script, List<String> keys, List<String> args);

  /**
   * Where the server is, for messages: {@code host:port} (and {@code /db} for a database other than
   * 0), never a password. Performs no I/O.
   *
   * @return the endpoint as the user configured it
   */
  String endpoint();

  /**
   * The server answered {@code NOSCRIPT}: it has no cached script with the SHA-1 passed to {@link
   * #evalsha}, for example after a restart or {@code SCRIPT FLUSH}. The store answers by sending
   * the source with {@link #eval}.
   *
   * @since 0.1
   */
  final class NoScriptException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param sha1 the SHA-1 the server did not know
     * @param cause the client's exception, or {@code null}
     */
    public NoScriptException(String sha1, @Nullable Throwable cause) {
      super("NOSCRIPT: the server has no script " + sha1, cause);
    }
  }
}
