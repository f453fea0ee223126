package io.watukuy.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.watukuy.ConfigException;
import io.watukuy.StoreException;
import io.watukuy.cli.CliConfig.StoreSpec;
import io.watukuy.spi.CredentialStore;
import io.watukuy.spi.RateBudgetStore;
import io.watukuy.spi.StateStore;
import io.watukuy.store.mariadb.MariaDbStore;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.store.postgres.PostgresStore;
import io.watukuy.store.redis.LettuceRedis;
import io.watukuy.store.redis.RedisBudgetStore;
import io.watukuy.store.redis.RedisLike;
import io.watukuy.store.redis.RedisStore;
import io.watukuy.store.sqlite.SqliteStore;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Opens the store a {@link StoreSpec} names. The command line owns the clients it opens for a store
 * (a HikariCP pool for PostgreSQL and MariaDB, a Lettuce connection for Redis): closing the
 * returned store closes them too.
 */
final class Stores {
  /**
   * Connections of one command's PostgreSQL or MariaDB pool: the engine runs a few keys at once.
   */
  static final int POSTGRES_POOL_SIZE = 4;

  /** How long a Redis command may take before it fails the cycle. */
  static final Duration REDIS_TIMEOUT = Duration.ofSeconds(10);

  /**
   * How long a PostgreSQL or MariaDB pool keeps trying for a connection before the call fails; 10 s
   * by default. HikariCP retries a refused connection until then, so a server that is down fails a
   * {@code --once} run only after it. Tests of that failure shorten it (HikariCP's minimum is 250
   * ms); nothing else changes it.
   */
  static volatile Duration poolConnectionTimeout = Duration.ofSeconds(10);

  private Stores() {}

  /**
   * The store of {@code spec}. Opens no connection for SQLite, PostgreSQL and MariaDB (the first
   * call does); connects at once for Redis.
   *
   * @throws StoreException when the folder of a SQLite file cannot be created or Redis does not
   *     answer; the message names the store, never a password
   */
  static StateStore open(StoreSpec spec) {
    return switch (spec.kind()) {
      case MEMORY -> new MemoryStore();
      case SQLITE -> sqlite(spec);
      case POSTGRES -> postgres(spec);
      case MARIADB -> mariadb(spec);
      case REDIS -> redis(spec);
    };
  }

  /**
   * Whether {@code spec} is a SQLite file that does not exist yet, so that opening it creates a
   * new, empty store: {@code run} says so in one line.
   */
  static boolean isNew(StoreSpec spec) {
    return spec.kind() == StoreSpec.Kind.SQLITE && !Files.exists(spec.sqlitePath());
  }

  /**
   * Removes the SQLite store {@code run} created in this run, with its journal files, after a
   * config error stopped the run (exit 2 leaves the store as it was: here, absent), so that no
   * {@code new store} was announced for a file that is not kept.
   *
   * @throws IOException when a file cannot be removed
   */
  static void discardNew(StoreSpec spec) throws IOException {
    Path db = spec.sqlitePath();
    for (String suffix : List.of("", "-wal", "-shm", "-journal"))
      Files.deleteIfExists(db.resolveSibling(db.getFileName() + suffix));
  }

  private static StateStore sqlite(StoreSpec spec) {
    checkFolder(spec);
    SqliteStore.Builder b = SqliteStore.builder(spec.sqlitePath());
    if (spec.tablePrefix() != null) b.tablePrefix(spec.tablePrefix());
    if (spec.busyTimeoutMs() != null) b.busyTimeoutMs(spec.busyTimeoutMs());
    return b.build();
  }

  /**
   * No command creates folders: a typo in the path ({@code sqlite:/data/watukuy.db} for {@code
   * sqlite:data/watukuy.db}) must not start a fresh store that re-emits everything.
   *
   * @throws ConfigException naming the store and the folder, when the folder is missing
   */
  static void checkFolder(StoreSpec spec) {
    if (spec.sqlitePath() != null) folderOf("store sqlite:", spec.sqlitePath());
  }

  /**
   * Checks that the folder of {@code file} exists; watukuy creates none (for a store, an output).
   *
   * @param what how the message names the file ({@code store sqlite:}, {@code output file:})
   * @throws ConfigException naming the file and the folder, when the folder is missing
   */
  static void folderOf(String what, Path file) {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null && !Files.isDirectory(parent))
      throw new ConfigException(
          what
              + file
              + ": folder "
              + parent
              + (Files.exists(parent) ? " is not a folder" : " does not exist")
              + "; watukuy creates no folders: create it, or fix the path");
  }

  private static StateStore postgres(StoreSpec spec) {
    PostgresStore.Builder b = PostgresStore.builder(pool(spec)).closeClient(true);
    if (spec.schema() != null) b.schema(spec.schema());
    if (spec.tablePrefix() != null) b.tablePrefix(spec.tablePrefix());
    return b.build();
  }

  private static StateStore mariadb(StoreSpec spec) {
    MariaDbStore.Builder b = MariaDbStore.builder(pool(spec)).closeClient(true);
    if (spec.tablePrefix() != null) b.tablePrefix(spec.tablePrefix());
    return b.build();
  }

  /** The command's pool on the JDBC URL of {@code spec}; the store closes it. */
  private static HikariDataSource pool(StoreSpec spec) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(spec.target());
    config.setPoolName("watukuy");
    config.setMaximumPoolSize(POSTGRES_POOL_SIZE);
    config.setMinimumIdle(0);
    // Connect on first use, so a server that is down fails a cycle (which backs off and retries)
    // with the store's own message instead of failing here.
    config.setInitializationFailTimeout(-1);
    config.setConnectionTimeout(poolConnectionTimeout.toMillis());
    return new HikariDataSource(config);
  }

  private static StateStore redis(StoreSpec spec) {
    Redis redis = connect(spec);
    RedisStore.Builder b = RedisStore.builder(redis.client());
    if (spec.keyPrefix() != null) b.prefix(spec.keyPrefix());
    return closingAlso(b.build(), redis);
  }

  /**
   * The shared budget store of {@code spec} ({@code budgetStore: redis://…}), and the connection to
   * close after the engine.
   *
   * @throws StoreException when Redis does not answer
   */
  static BudgetStore budgetStore(StoreSpec spec) {
    Redis redis = connect(spec);
    RedisBudgetStore.Builder b = RedisBudgetStore.builder(redis.client());
    if (spec.keyPrefix() != null) b.prefix(spec.keyPrefix());
    return new BudgetStore(b.build(), redis);
  }

  /** A budget store and the connection the command opened for it. */
  record BudgetStore(RateBudgetStore store, AutoCloseable connection) {}

  /** A Lettuce connection the command owns: closing it shuts the client down. */
  record Redis(
      RedisLike client, StatefulRedisConnection<String, String> connection, RedisClient owner)
      implements AutoCloseable {
    @Override
    public void close() {
      connection.close();
      owner.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private static Redis connect(StoreSpec spec) {
    RedisURI uri = RedisURI.create(spec.target());
    if (uri.getTimeout().compareTo(REDIS_TIMEOUT) > 0) uri.setTimeout(REDIS_TIMEOUT);
    RedisClient client = RedisClient.create(uri);
    // A command sent while disconnected fails at once (the cycle backs off) instead of queueing.
    client.setOptions(
        ClientOptions.builder()
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .build());
    StatefulRedisConnection<String, String> connection;
    try {
      connection = client.connect();
    } catch (RuntimeException e) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      throw new StoreException(
          "redis store "
              + uri.getHost()
              + ":"
              + uri.getPort()
              + ": cannot connect: "
              + e.getMessage(),
          e);
    }
    return new Redis(LettuceRedis.of(connection, uri), connection, client);
  }

  /**
   * {@code store}, whose {@link StateStore#close()} then closes {@code client} as well. It is a
   * {@link CredentialStore} exactly when {@code store} is, so the credentials stay reachable
   * through it; its {@link StateStore#effects()} are {@code store}'s ({@code watukuy effects} on
   * Redis).
   */
  static StateStore closingAlso(StateStore store, AutoCloseable client) {
    List<Class<?>> kinds = new ArrayList<>(List.of(StateStore.class));
    if (store instanceof CredentialStore) kinds.add(CredentialStore.class);
    Class<?>[] interfaces = kinds.toArray(Class<?>[]::new);
    return (StateStore)
        Proxy.newProxyInstance(
            StateStore.class.getClassLoader(),
            interfaces,
            (proxy, method, args) -> {
              if (method.getName().equals("close") && method.getParameterCount() == 0) {
                try {
                  store.close();
                } finally {
                  client.close();
                }
                return null;
              }
              if (method.getDeclaringClass() == Object.class
                  && method.getName().equals("toString")) {
                return store.toString();
              }
              try {
                return method.invoke(store, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  /** A client that is never called: lets the config reader check a Redis prefix up front. */
  enum NoRedis implements RedisLike {
    INSTANCE;

    @Override
    public Object evalsha(String sha1, List<String> keys, List<String> args) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Object eval(String script, List<String> keys, List<String> args) {
      throw new UnsupportedOperationException();
    }

    @Override
    public String endpoint() {
      return "none";
    }
  }
}
