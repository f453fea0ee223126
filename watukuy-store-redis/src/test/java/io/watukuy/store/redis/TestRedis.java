package io.watukuy.store.redis;

import io.lettuce.core.api.sync.RedisCommands;
import io.watukuy.testing.TestServer;
import java.util.List;

/**
 * The machine's Redis (127.0.0.1:6379) as a {@link TestServer}, for the tests of this module: one
 * connection for the class, key prefixes that no other run uses, each with its keys deleted after
 * the test that took it (or after the class), and more connections for tests that play several
 * processes. Lettuce is this module's own dependency, so this helper lives here, not in {@code
 * watukuy-testing}.
 *
 * <pre>{@code
 * @RegisterExtension static final TestRedis redis = TestRedis.local();
 *
 * RedisStore store = redis.store(redis.newPrefix("engine"));
 * }</pre>
 */
final class TestRedis extends TestServer {
  private volatile LocalRedis connection;

  private TestRedis() {}

  /** The local server; connects before the first test. */
  static TestRedis local() {
    return new TestRedis();
  }

  @Override
  protected void start() {
    connection = LocalRedis.open();
  }

  @Override
  protected void stop() {
    if (connection != null) {
      connection.close();
      connection = null;
    }
  }

  /** {@code watukuy-test:<label>:<16 hex digits>:}, which holds no glob character. */
  @Override
  protected String namespaceName(String label, String random) {
    return "watukuy-test:" + label + ":" + random + ":";
  }

  @Override
  protected void drop(String prefix) {
    connection().deleteKeys(prefix);
  }

  /**
   * A key prefix no other test or run uses, its keys deleted after the test that took it, or after
   * the class when taken outside a test.
   */
  String newPrefix(String label) {
    return newNamespace(label);
  }

  /** The class's connection. */
  LocalRedis connection() {
    if (connection == null) {
      throw new IllegalStateException("not connected: register TestRedis on a static field");
    }
    return connection;
  }

  /** The class's connection as the stores' port. */
  RedisLike client() {
    return connection().redis;
  }

  RedisCommands<String, String> commands() {
    return connection().commands();
  }

  /** A store on the class's connection. */
  RedisStore store(String prefix) {
    return connection().store(prefix);
  }

  /** Every key under {@code prefix}. */
  List<String> keys(String prefix) {
    return connection().keys(prefix);
  }

  /**
   * A connection of its own, as another process would open, closed after the test that opened it
   * (or after the class).
   */
  LocalRedis connect() {
    return closeAfter(LocalRedis.open());
  }
}
