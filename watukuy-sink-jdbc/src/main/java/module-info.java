/**
 * The database table sink: {@code TableSink}, sink type {@code table} (docs/sinks.md, "Database
 * tables"). The application brings the JDBC driver.
 */
module io.watukuy.sink.jdbc {
  requires transitive io.watukuy;
  requires transitive io.watukuy.store.jdbc;
  requires transitive java.sql;
  requires com.fasterxml.jackson.databind;
  requires com.zaxxer.hikari;
  requires static org.jspecify;

  exports io.watukuy.sink.jdbc;

  provides io.watukuy.sink.SinkProvider with
      io.watukuy.sink.jdbc.TableSinkProvider;
}
