package io.watukuy.spring.boot;

import io.watukuy.spi.StateStore;
import io.watukuy.store.postgres.PostgresStore;
import javax.sql.DataSource;

/** Names {@link PostgresStore} apart, so the module stays optional (see {@link StoreFactory}). */
final class PostgresStores {
  private PostgresStores() {}

  static StateStore create(DataSource ds, WatukuyProperties.Store p, boolean ownsPool) {
    return PostgresStore.builder(ds)
        .schema(p.getSchema())
        .tablePrefix(p.getTablePrefix())
        .closeClient(ownsPool)
        .build();
  }
}
