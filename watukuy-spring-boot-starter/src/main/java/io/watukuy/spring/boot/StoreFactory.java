package io.watukuy.spring.boot;

import io.watukuy.ConfigException;
import io.watukuy.spi.StateStore;
import io.watukuy.store.memory.MemoryStore;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * The store of {@code watukuy.store.*}: a URI when one is set, else the application's DataSource
 * with the dialect read from its metadata. Each store module is optional, so its classes are named
 * only in the small holder classes, reached after the module is found on the class path.
 */
final class StoreFactory {
  private static final String POSTGRES = "io.watukuy.store.postgres.PostgresStore";
  private static final String MARIADB = "io.watukuy.store.mariadb.MariaDbStore";
  private static final String SQLITE = "io.watukuy.store.sqlite.SqliteStore";
  private static final String HIKARI = "com.zaxxer.hikari.HikariDataSource";

  private StoreFactory() {}

  /**
   * The store the properties name.
   *
   * @param dataSource the application's, or null when it has none
   * @throws ConfigException naming the key and value when neither gives a store
   */
  static StateStore create(WatukuyProperties.Store p, @Nullable DataSource dataSource) {
    String uri = p.getUri();
    if (uri != null && !uri.isBlank()) return fromUri(uri.strip(), p);
    if (dataSource == null)
      throw new ConfigException(
          "watukuy.store: the application has no DataSource and watukuy.store.uri is not set;"
              + " set spring.datasource.url, or watukuy.store.uri to memory:, sqlite:PATH,"
              + " postgres:JDBC-URL or mariadb:JDBC-URL");
    return fromDataSource(dataSource, p);
  }

  static StateStore fromUri(String uri, WatukuyProperties.Store p) {
    if (uri.equals("memory:") || uri.equals("memory")) return new MemoryStore();
    if (uri.startsWith("sqlite:")) {
      need(SQLITE, "watukuy-store-sqlite", "watukuy.store.uri " + uri);
      return SqliteStores.open(uri.substring("sqlite:".length()), p);
    }
    if (uri.startsWith("postgres:jdbc:postgresql:")) {
      need(POSTGRES, "watukuy-store-postgres", "watukuy.store.uri postgres:");
      need(HIKARI, "HikariCP (com.zaxxer:HikariCP)", "watukuy.store.uri postgres:");
      return PostgresStores.create(Pools.create(uri.substring("postgres:".length()), p), p, true);
    }
    if (uri.startsWith("mariadb:jdbc:mariadb:") || uri.startsWith("mariadb:jdbc:mysql:")) {
      need(MARIADB, "watukuy-store-mariadb", "watukuy.store.uri mariadb:");
      need(HIKARI, "HikariCP (com.zaxxer:HikariCP)", "watukuy.store.uri mariadb:");
      return MariaDbStores.create(Pools.create(uri.substring("mariadb:".length()), p), p, true);
    }
    // The URI may hold a password: only its scheme goes into the message.
    int colon = uri.indexOf(':');
    throw new ConfigException(
        "watukuy.store.uri: '"
            + (colon < 0 ? uri : uri.substring(0, colon + 1) + "...")
            + "' is not a store URI (memory:, sqlite:PATH, postgres:jdbc:postgresql://...,"
            + " mariadb:jdbc:mariadb://...)");
  }

  static StateStore fromDataSource(DataSource dataSource, WatukuyProperties.Store p) {
    String product;
    String url;
    try (Connection c = dataSource.getConnection()) {
      DatabaseMetaData meta = c.getMetaData();
      product = meta.getDatabaseProductName();
      url = meta.getURL();
    } catch (SQLException e) {
      throw new ConfigException(
          "watukuy.store: cannot read the DataSource's database product to choose a store: "
              + e.getMessage(),
          e);
    }
    String name = product == null ? "" : product.toLowerCase(Locale.ROOT);
    if (name.contains("postgresql")) {
      need(POSTGRES, "watukuy-store-postgres", "the DataSource is " + product + ";");
      return PostgresStores.create(dataSource, p, false);
    }
    if (name.contains("mariadb") || name.contains("mysql")) {
      need(MARIADB, "watukuy-store-mariadb", "the DataSource is " + product + ";");
      return MariaDbStores.create(dataSource, p, false);
    }
    if (name.contains("sqlite")) {
      need(SQLITE, "watukuy-store-sqlite", "the DataSource is " + product + ";");
      if (url == null || !url.startsWith("jdbc:sqlite:"))
        throw new ConfigException(
            "watukuy.store: the SQLite DataSource gives no jdbc:sqlite: URL; set watukuy.store.uri"
                + " to sqlite:PATH");
      return SqliteStores.open(url.substring("jdbc:sqlite:".length()), p);
    }
    throw new ConfigException(
        "watukuy.store: the DataSource is "
            + product
            + ", which no store supports (PostgreSQL, MariaDB, MySQL, SQLite); set watukuy.store.uri");
  }

  private static void need(String className, String module, String why) {
    if (!ClassUtils.isPresent(className, StoreFactory.class.getClassLoader()))
      throw new ConfigException(
          "watukuy.store: " + why + " add the dependency io.watukuy:" + module + " to use it");
  }
}
