package io.watukuy.sink.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.ConfigException;
import io.watukuy.sink.SinkConfig;
import io.watukuy.store.memory.MemoryStore;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code sink: {type: table}} section: what it accepts, what it refuses and how it says so. */
class TableSettingsTest {
  private static final Map<String, String> COLUMNS =
      Map.of("delivery_key", "deliveryKey", "body", "data");

  private static SinkConfig config(Map<String, ?> settings) {
    return SinkConfig.of(settings, Path.of("."));
  }

  @Test
  void anUnknownKeyIsRefusedNamingIt() {
    assertThatThrownBy(
            () ->
                new TableSinkProvider()
                    .create(
                        config(
                            Map.of(
                                "type", "table",
                                "url", "jdbc:sqlite:x.db",
                                "table", "t",
                                "columns", COLUMNS,
                                "colums", COLUMNS))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sink.colums: unknown key");
  }

  @Test
  void anUnknownEventFieldIsRefusedNamingTheColumnAndTheValue() {
    assertThatThrownBy(
            () ->
                new TableSinkProvider()
                    .create(
                        config(
                            Map.of(
                                "type",
                                "table",
                                "url",
                                "jdbc:sqlite:x.db",
                                "table",
                                "t",
                                "columns",
                                Map.of("delivery_key", "deliveryKey", "x", "payload")))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sink.columns.x: 'payload' is not an event field");
  }

  @Test
  void insertModeWithoutADeliveryKeyColumnIsRefused() {
    assertThatThrownBy(
            () ->
                new TableSinkProvider()
                    .create(
                        config(
                            Map.of(
                                "type", "table",
                                "url", "jdbc:sqlite:x.db",
                                "table", "t",
                                "columns", Map.of("event_id", "id")))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sink.columns: insert mode needs a column mapped to deliveryKey");
  }

  @Test
  void aTableTemplateWithAnotherPlaceholderIsRefused() {
    assertThatThrownBy(
            () ->
                new TableSinkProvider()
                    .create(
                        config(
                            Map.of(
                                "type", "table",
                                "url", "jdbc:sqlite:x.db",
                                "table", "t_{{identity}}",
                                "columns", COLUMNS))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sink.table: '{{identity}}' cannot name a destination");
  }

  @Test
  void sameDatabaseWithAStoreThatIsNotSqlIsAClearErrorAtOpen() {
    TableSink sink =
        (TableSink)
            new TableSinkProvider()
                .create(
                    config(
                            Map.of(
                                "type",
                                "table",
                                "sameDatabase",
                                true,
                                "table",
                                "t",
                                "columns",
                                COLUMNS))
                        .withStore(new MemoryStore()));

    assertThatThrownBy(sink::open)
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("table t in the store's database")
        .hasMessageContaining("needs a SQL store");
  }

  @Test
  void theSinksNameNeverShowsTheUserThePasswordOrTheUrlParameters() {
    TableSink sink =
        (TableSink)
            new TableSinkProvider()
                .create(
                    config(
                        Map.of(
                            "type", "table",
                            "url",
                                "jdbc:postgresql://app:s3cret@db.example:5432/shop?password=s3cret",
                            "table", "orders",
                            "columns", COLUMNS)));

    assertThat(sink.name()).isEqualTo("table orders at db.example:5432/shop");
  }

  @Test
  void aRenderedTableNameMustBeAPlainIdentifier() {
    assertThat(TableName.parse("shop.orders_eu")).isEqualTo(new TableName("shop", "orders_eu"));
    assertThatThrownBy(() -> TableName.parse("orders; DROP TABLE x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is not a valid table name");
  }
}
