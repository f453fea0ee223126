package io.watukuy.spring.boot;

import io.watukuy.spi.StateStore;
import io.watukuy.store.sqlite.SqliteStore;

/** Names {@link SqliteStore} apart, so the module stays optional (see {@link StoreFactory}). */
final class SqliteStores {
  private SqliteStores() {}

  static StateStore open(String path, WatukuyProperties.Store p) {
    return SqliteStore.builder(path).tablePrefix(p.getTablePrefix()).build();
  }
}
