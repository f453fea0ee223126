package io.watukuy.spring.boot;

import io.watukuy.spi.StateStore;
import io.watukuy.store.mariadb.MariaDbStore;
import javax.sql.DataSource;

/** Names {@link MariaDbStore} apart, so the module stays optional (see {@link StoreFactory}). */
final class MariaDbStores {
  private MariaDbStores() {}

  static StateStore create(DataSource ds, WatukuyProperties.Store p, boolean ownsPool) {
    return MariaDbStore.builder(ds).tablePrefix(p.getTablePrefix()).closeClient(ownsPool).build();
  }
}
