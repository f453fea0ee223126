/**
 * The JDBC engine of the SQL stores: {@code JdbcStoreEngine} and the {@code SqlDialect} SPI a
 * store's module implements for its database (docs/stores.md). Depends on no driver.
 */
module io.watukuy.store.jdbc {
  requires transitive io.watukuy;
  // The SqlDialect SPI and the engine's builder speak java.sql (Connection, DataSource).
  requires transitive java.sql;
  requires static org.jspecify;

  exports io.watukuy.store.jdbc;
}
