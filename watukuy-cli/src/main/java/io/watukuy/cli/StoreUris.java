package io.watukuy.cli;

import io.lettuce.core.RedisURI;
import io.watukuy.ConfigException;
import io.watukuy.cli.CliConfig.StoreSpec;
import io.watukuy.cli.Stores.NoRedis;
import io.watukuy.store.mariadb.MariaDbStore;
import io.watukuy.store.postgres.PostgresStore;
import io.watukuy.store.redis.RedisStore;
import io.watukuy.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * What a store URI names, with the options of a {@code store:} map, checked before anything runs:
 * {@code sqlite:PATH}, {@code memory:}, {@code postgres:JDBC-URL}, {@code mariadb:JDBC-URL}, {@code
 * redis://host:port/db}. Shared by the config's {@code store:} and {@code budgetStore:} and by
 * {@code --store URI}, which differ only in where an error points; apart from {@link ConfigReader}
 * because it reads a URI, not YAML.
 */
final class StoreUris {
  private StoreUris() {}

  /** {@code --store URI}: relative paths resolve against the current folder. */
  static StoreSpec parse(String uri) {
    return spec(
        uri,
        StoreOptions.NONE,
        Path.of("").toAbsolutePath(),
        message -> new ConfigException("--store: " + message));
  }

  /** The options of a {@code store:} map; each applies to one to three kinds of store. */
  record StoreOptions(
      @Nullable String tablePrefix,
      @Nullable Long busyTimeoutMs,
      @Nullable String schema,
      @Nullable String prefix) {
    static final StoreOptions NONE = new StoreOptions(null, null, null, null);
  }

  /**
   * What {@code uri} and its options name, checked.
   *
   * @param dir the folder a relative SQLite path resolves against
   * @param fail the error for a problem: with the config file's line, or {@code --store:}
   * @throws ConfigException for a URI of no known store, or options its store does not take
   */
  static StoreSpec spec(
      String uri, StoreOptions o, Path dir, Function<String, ConfigException> fail) {
    // A bare "memory:" is not valid YAML as a plain scalar, so "memory" is accepted too.
    if (uri.equals("memory:") || uri.equals("memory")) {
      onlyFor(fail, "memory:", o, false, false, false, false);
      return StoreSpec.memory(uri);
    }
    if (uri.startsWith("sqlite:")) {
      onlyFor(fail, "sqlite:", o, true, true, false, false);
      String path = uri.substring("sqlite:".length());
      if (path.isEmpty())
        throw fail.apply("'" + uri + "': sqlite: needs a file path, e.g. sqlite:watukuy.db");
      try {
        // Checked here, as for postgres: and mariadb:, so that validate refuses what run would
        // and the message names the line. The builder opens nothing.
        SqliteStore.Builder check = SqliteStore.builder(dir.resolve(path).normalize());
        if (o.tablePrefix() != null) check.tablePrefix(o.tablePrefix());
        if (o.busyTimeoutMs() != null) check.busyTimeoutMs(o.busyTimeoutMs());
      } catch (ConfigException e) {
        throw fail.apply(e.getMessage());
      }
      return StoreSpec.sqlite(
          uri, dir.resolve(path).normalize(), o.tablePrefix(), o.busyTimeoutMs());
    }
    if (uri.startsWith("postgres:")) {
      onlyFor(fail, "postgres:", o, true, false, true, false);
      String jdbc = uri.substring("postgres:".length());
      if (!jdbc.startsWith("jdbc:postgresql:")) {
        throw fail.apply(
            "'"
                + StoreSpec.memory(uri).display()
                + "': postgres: is followed by a JDBC URL,"
                + " e.g. postgres:jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
      }
      noUserInfo(fail, uri, jdbc, "postgres:jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
      try {
        // Checked here, before anything runs, so the message can name the line.
        PostgresStore.Builder check = PostgresStore.builder(new PGSimpleDataSource());
        if (o.schema() != null) check.schema(o.schema());
        if (o.tablePrefix() != null) check.tablePrefix(o.tablePrefix());
      } catch (ConfigException e) {
        throw fail.apply(e.getMessage());
      }
      return new StoreSpec(
          uri, StoreSpec.Kind.POSTGRES, null, jdbc, o.tablePrefix(), null, o.schema(), null);
    }
    if (uri.startsWith("mariadb:")) {
      onlyFor(fail, "mariadb:", o, true, false, false, false);
      String jdbc = uri.substring("mariadb:".length());
      if (!jdbc.startsWith("jdbc:mariadb:")) {
        throw fail.apply(
            "'"
                + StoreSpec.memory(uri).display()
                + "': mariadb: is followed by a JDBC URL,"
                + " e.g. mariadb:jdbc:mariadb://127.0.0.1:3306/test?user=root");
      }
      noUserInfo(fail, uri, jdbc, "mariadb:jdbc:mariadb://127.0.0.1:3306/test?user=root");
      try {
        // Checked here, before anything runs, so the message can name the line.
        if (o.tablePrefix() != null) MariaDbStore.ddl(o.tablePrefix());
      } catch (ConfigException e) {
        throw fail.apply(e.getMessage());
      }
      return new StoreSpec(
          uri, StoreSpec.Kind.MARIADB, null, jdbc, o.tablePrefix(), null, null, null);
    }
    if (uri.startsWith("redis://") || uri.startsWith("rediss://")) {
      onlyFor(fail, "redis:", o, false, false, false, true);
      try {
        RedisURI.create(uri);
        if (o.prefix() != null) RedisStore.builder(NoRedis.INSTANCE).prefix(o.prefix());
      } catch (ConfigException e) {
        throw fail.apply(e.getMessage());
      } catch (IllegalArgumentException e) {
        throw fail.apply(
            "'"
                + StoreSpec.memory(uri).display()
                + "' is not a Redis URI (redis://host:port/db): "
                + e.getMessage());
      }
      return new StoreSpec(uri, StoreSpec.Kind.REDIS, null, uri, null, null, null, o.prefix());
    }
    throw fail.apply(
        "'"
            + StoreSpec.memory(uri).display()
            + "' is not a store URI (sqlite:PATH, memory:, postgres:JDBC-URL, mariadb:JDBC-URL or"
            + " redis://host:port/db)");
  }

  private static void onlyFor(
      Function<String, ConfigException> fail,
      String kind,
      StoreOptions o,
      boolean tablePrefix,
      boolean busy,
      boolean schema,
      boolean prefix) {
    String wrong =
        !tablePrefix && o.tablePrefix() != null
            ? "tablePrefix (sqlite:, postgres: and mariadb: only)"
            : !busy && o.busyTimeoutMs() != null
                ? "busyTimeoutMs (sqlite: only)"
                : !schema && o.schema() != null
                    ? "schema (postgres: only)"
                    : !prefix && o.prefix() != null ? "prefix (redis: only)" : null;
    if (wrong != null) throw fail.apply("a " + kind + " store takes no " + wrong);
  }

  /**
   * Refuses {@code //user:password@host} in a JDBC URL: neither pgjdbc nor MariaDB Connector/J
   * reads credentials there; they take the text as a host or port and quote it, password and all,
   * in their connection errors. Refusing it up front keeps the password out of every message.
   */
  private static void noUserInfo(
      Function<String, ConfigException> fail, String uri, String jdbc, String example) {
    int hosts = jdbc.indexOf("//");
    if (hosts < 0) return;
    int end = hosts + 2;
    while (end < jdbc.length() && "/?#".indexOf(jdbc.charAt(end)) < 0) end++;
    if (jdbc.substring(hosts + 2, end).indexOf('@') < 0) return;
    throw fail.apply(
        "'"
            + StoreSpec.memory(uri).display()
            + "': the driver does not read a user or password before the host; put them in the"
            + " query, e.g. "
            + example
            + "&password=... (a password is shown as ***)");
  }
}
