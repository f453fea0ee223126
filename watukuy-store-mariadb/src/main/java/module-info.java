/**
 * The MariaDB store: {@code MariaDbStore} over the application's {@link javax.sql.DataSource} (the
 * application brings the pool; MariaDB Connector/J comes with this module; docs/stores.md).
 */
module io.watukuy.store.mariadb {
  requires transitive io.watukuy;
  requires io.watukuy.store.jdbc;
  requires transitive java.sql;
  requires static org.jspecify;

  exports io.watukuy.store.mariadb;
}
