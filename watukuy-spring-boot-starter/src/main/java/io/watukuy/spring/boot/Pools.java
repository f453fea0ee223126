package io.watukuy.spring.boot;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;

/**
 * The pool of a {@code postgres:} or {@code mariadb:} store URI; the store closes it. Named apart
 * so HikariCP stays optional (see {@link StoreFactory}).
 */
final class Pools {
  private Pools() {}

  static DataSource create(String jdbcUrl, WatukuyProperties.Store p) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    if (p.getUsername() != null) config.setUsername(p.getUsername());
    if (p.getPassword() != null) config.setPassword(p.getPassword());
    config.setPoolName("watukuy");
    config.setMaximumPoolSize(4);
    config.setMinimumIdle(0);
    // Connect on first use: a database that is down fails a cycle, which backs off and retries,
    // rather than the application's start.
    config.setInitializationFailTimeout(-1);
    config.setConnectionTimeout(10_000);
    return new HikariDataSource(config);
  }
}
