/** The SQLite store: {@code SqliteStore}, one database file per store (docs/stores.md). */
module io.watukuy.store.sqlite {
  requires transitive io.watukuy;
  requires java.sql;
  requires org.xerial.sqlitejdbc;
  requires static org.jspecify;

  exports io.watukuy.store.sqlite;
}
