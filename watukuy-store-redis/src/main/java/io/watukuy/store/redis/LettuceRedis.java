package io.watukuy.store.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * {@link RedisLike} over a Lettuce connection the caller opened and will close. Scripts run through
 * the connection's synchronous API with {@link ScriptOutputType#MULTI}, so each call blocks for at
 * most the connection's command timeout ({@link RedisURI#getTimeout()}, 60 s unless set).
 *
 * <pre>{@code
 * RedisURI uri = RedisURI.create("redis://127.0.0.1:6379");
 * uri.setTimeout(Duration.ofSeconds(5));
 * RedisClient client = RedisClient.create(uri);
 * client.setOptions(ClientOptions.builder()
 *     .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
 *     .build());
 * StatefulRedisConnection<String, String> connection = client.connect();
 * RedisStore store = RedisStore.open(LettuceRedis.of(connection, uri));
 * }</pre>
 *
 * <p><b>Connection settings.</b> The connection must use a UTF-8 string codec (the default of
 * {@code RedisClient.connect()}). Lettuce reconnects by itself after the server went away ({@code
 * autoReconnect}, on by default), so the store works again once the server is back. With the
 * default {@code disconnectedBehavior}, commands issued while disconnected wait in a buffer until
 * the reconnect or the command timeout; {@code REJECT_COMMANDS}, as above, makes them fail at once,
 * which a poller's backoff handles better. Either way a failure reaches the caller as a {@link
 * io.watukuy.StoreException} naming {@link #endpoint()}.
 *
 * <p><b>Repeated scripts.</b> Lettuce delivers at least once when it reconnects by itself: a script
 * already sent when the connection dropped, whose caller has not yet given up, is sent again after
 * the reconnect. The store's scripts make a repeat harmless or refuse it: a repeated commit is
 * refused because its sequences are taken (the caller sees a {@link io.watukuy.StoreException} and
 * reloads, as after any failed commit), acks, state patches, validators and parking are idempotent,
 * a repeated {@code recordAttempt} counts one attempt more, and a repeated {@code acquireLease}
 * finds the key leased (the lease expires after its TTL). Of the effect tables' scripts, cursor and
 * invocation writes, skip requests, quarantine and rewind are idempotent, a repeated effect lease
 * acquisition by its owner keeps the epoch, a repeated journal append answers false and keeps the
 * entry, and a repeated {@code addCounts} adds its counts twice.
 *
 * <p>Thread-safe, as the connection is. Never closes the connection.
 *
 * @since 0.1
 */
public final class LettuceRedis implements RedisLike {

  private final RedisScriptingCommands<String, String> commands;
  private final String endpoint;

  private LettuceRedis(RedisScriptingCommands<String, String> commands, String endpoint) {
    this.commands = commands;
    this.endpoint = endpoint;
  }

  /**
   * Adapts a connection to one Redis server, named in messages by {@code uri}'s host, port and
   * database (never its password).
   *
   * @param connection an open connection with a UTF-8 string codec; not closed by the store
   * @param uri the URI the connection was opened with
   * @return the adapter
   * @throws NullPointerException if an argument is null
   */
  public static LettuceRedis of(StatefulRedisConnection<String, String> connection, RedisURI uri) {
    Objects.requireNonNull(uri, "uri");
    return of(connection, endpointOf(uri));
  }

  /**
   * Adapts a connection to one Redis server, named in messages by {@code endpoint}.
   *
   * @param connection an open connection with a UTF-8 string codec; not closed by the store
   * @param endpoint how messages name the server, e.g. {@code 127.0.0.1:6379}; must not carry a
   *     password
   * @return the adapter
   * @throws NullPointerException if an argument is null
   */
  public static LettuceRedis of(
      StatefulRedisConnection<String, String> connection, String endpoint) {
    Objects.requireNonNull(connection, "connection");
    Objects.requireNonNull(endpoint, "endpoint");
    return new LettuceRedis(connection.sync(), endpoint);
  }

  /**
   * Adapts a Redis Cluster connection: each script is routed to the node that owns the hash slot of
   * its keys (all keys of one call share a hash tag). Only the key layout has been checked for
   * cluster use (every key of a poller key hashes to one slot); no cluster was run in tests.
   *
   * @param connection an open cluster connection with a UTF-8 string codec; not closed by the store
   * @param endpoint how messages name the cluster, e.g. its seed nodes; must not carry a password
   * @return the adapter
   * @throws NullPointerException if an argument is null
   */
  public static LettuceRedis ofCluster(
      StatefulRedisClusterConnection<String, String> connection, String endpoint) {
    Objects.requireNonNull(connection, "connection");
    Objects.requireNonNull(endpoint, "endpoint");
    return new LettuceRedis(connection.sync(), endpoint);
  }

  /**
   * How messages name the server of {@code uri}: {@code host:port}, plus {@code /db} when the
   * database is not 0, or the socket path of a Unix-socket URI. Never includes credentials.
   *
   * @param uri a Redis URI
   * @return the endpoint text
   */
  static String endpointOf(RedisURI uri) {
    String where;
    if (uri.getSocket() != null) {
      where = uri.getSocket();
    } else if (uri.getHost() != null) {
      where = uri.getHost() + ":" + uri.getPort();
    } else {
      where = "sentinel " + uri.getSentinelMasterId();
    }
    return uri.getDatabase() == 0 ? where : where + "/" + uri.getDatabase();
  }

  @Override
  public @Nullable Object evalsha(String sha1, List<String> keys, List<String> args) {
    try {
      return commands.evalsha(
          sha1, ScriptOutputType.MULTI, keys.toArray(new String[0]), args.toArray(new String[0]));
    } catch (RedisNoScriptException e) {
      throw new NoScriptException(sha1, e);
    }
  }

  @Override
  public @Nullable Object eval(String script, List<String> keys, List<String> args) {
    return commands.eval(
        script, ScriptOutputType.MULTI, keys.toArray(new String[0]), args.toArray(new String[0]));
  }

  @Override
  public String endpoint() {
    return endpoint;
  }

  @Override
  public String toString() {
    return "LettuceRedis[" + endpoint + "]";
  }
}
