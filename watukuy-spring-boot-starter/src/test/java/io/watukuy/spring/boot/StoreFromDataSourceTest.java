package io.watukuy.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.Watukuy;
import io.watukuy.spi.StateStore;
import io.watukuy.store.postgres.PostgresStore;
import io.watukuy.store.sqlite.SqliteStore;
import io.watukuy.testing.TestPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.sqlite.SQLiteDataSource;

/**
 * The store comes from the application's {@code DataSource}, its kind read from the connection's
 * metadata: PostgreSQL (the local server, a schema of its own) and SQLite, each with the table
 * prefix and, for PostgreSQL, the schema of the properties; migrating creates the tables there.
 */
class StoreFromDataSourceTest {
  @RegisterExtension static final TestPostgres postgres = TestPostgres.local();

  final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(WatukuyAutoConfiguration.class))
          .withUserConfiguration(
              Fixtures.Orders.class, Fixtures.RecordingHandler.class, Fixtures.Deterministic.class)
          .withPropertyValues("watukuy.auto-startup=false", "watukuy.store.table-prefix=sb_");

  @Test
  void aPostgresDataSourceGivesAPostgresStoreInTheSchemaAndPrefixOfTheProperties()
      throws Exception {
    String schema = postgres.newSchema("wk_starter");
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(postgres.url());
    runner
        .withBean(DataSource.class, () -> ds)
        .withPropertyValues("watukuy.store.schema=" + schema)
        .run(
            ctx -> {
              StateStore store = ctx.getBean(StateStore.class);
              assertThat(store).isInstanceOf(PostgresStore.class);
              assertThat(((PostgresStore) store).schema()).isEqualTo(schema);
              assertThat(((PostgresStore) store).tablePrefix()).isEqualTo("sb_");
              Watukuy engine = ctx.getBean(Watukuy.class);
              engine.migrate();
              engine.tick();
              assertThat(ctx.getBean(Fixtures.RecordingHandler.Seen.class).events)
                  .containsExactlyInAnyOrder("created:a", "created:p");
            });
    assertThat(tables(ds, schema)).isNotEmpty().allMatch(t -> t.startsWith("sb_"));
    // The application's DataSource stays open after the context closed: the store does not own it.
    try (Connection c = ds.getConnection()) {
      assertThat(c.isValid(5)).isTrue();
    }
  }

  @Test
  void aSqliteDataSourceGivesASqliteStoreOnTheSameFile(@TempDir Path dir) {
    SQLiteDataSource ds = new SQLiteDataSource();
    ds.setUrl("jdbc:sqlite:" + dir.resolve("app.db"));
    runner
        .withBean(DataSource.class, () -> ds)
        .run(
            ctx -> {
              assertThat(ctx.getBean(StateStore.class)).isInstanceOf(SqliteStore.class);
              Watukuy engine = ctx.getBean(Watukuy.class);
              engine.migrate();
              engine.tick();
              assertThat(engine.parked().list("orders")).hasSize(1);
            });
    assertThat(dir.resolve("app.db")).exists();
  }

  @Test
  void aSqliteUriWinsOverTheDataSource(@TempDir Path dir) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(postgres.url());
    runner
        .withBean(DataSource.class, () -> ds)
        .withPropertyValues("watukuy.store.uri=sqlite:" + dir.resolve("w.db"))
        .run(ctx -> assertThat(ctx.getBean(StateStore.class)).isInstanceOf(SqliteStore.class));
  }

  private static List<String> tables(DataSource ds, String schema) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = ds.getConnection();
        ResultSet rs = c.getMetaData().getTables(null, schema, "%", new String[] {"TABLE"})) {
      while (rs.next()) out.add(rs.getString("TABLE_NAME"));
    }
    return out;
  }
}
