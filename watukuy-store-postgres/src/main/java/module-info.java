/**
 * The PostgreSQL store: {@code PostgresStore} over the application's {@link javax.sql.DataSource}
 * (the application brings the driver and the pool; docs/stores.md).
 */
module io.watukuy.store.postgres {
  requires transitive io.watukuy;
  requires transitive java.sql;
  requires static org.jspecify;

  exports io.watukuy.store.postgres;
}
