package io.watukuy.sink.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.ConfigException;
import io.watukuy.PollerKey;
import io.watukuy.sink.SinkConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a table sink cannot heal by waiting, said when the config is read or when the sink opens
 * (docs/sinks.md, "Database tables"): a URL no driver takes, refused credentials, a table name a
 * poller's name makes invalid. Each is a {@link ConfigException} naming the sink, never an outage.
 */
class TableSinkStartTest {
  private static final Map<String, String> COLUMNS =
      Map.of("delivery_key", "deliveryKey", "body", "data");

  private static final String MARIADB =
      System.getProperty("watukuy.mariadb.server", "jdbc:mariadb://127.0.0.1:3306/") + "test";

  private static SinkConfig config(Map<String, ?> settings) {
    return SinkConfig.of(settings, Path.of("."));
  }

  @Test
  void aUrlNoDriverTakesIsAConfigErrorNamingTheUrlWithoutItsPassword() {
    Map<String, Object> section =
        Map.of(
            "type", "table",
            "url", "jdbc:oracle:thin:app/x@//db.example:1521/shop?password=hunter22",
            "table", "orders",
            "columns", COLUMNS);

    assertThatThrownBy(() -> new TableSinkProvider().create(config(section)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sink.url: 'jdbc:oracle:thin:app/x@//db.example:1521/shop")
        .hasMessageContaining("has no JDBC driver here")
        .hasMessageNotContaining("hunter22");
  }

  @Test
  void openingAUrlNoDriverTakesIsAConfigErrorNotAnOutage() {
    TableSink sink =
        new TableSink(
            new TableSettings(
                "jdbc:nosuchdb://app:hunter22@db.example/shop",
                null,
                null,
                io.watukuy.sink.Destination.parse("orders"),
                TableMode.INSERT,
                Map.of("delivery_key", EventField.DELIVERY_KEY),
                OnConflict.IGNORE,
                false,
                io.watukuy.sink.EventFormat.ENVELOPE));

    assertThatThrownBy(sink::open)
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("table orders at db.example/shop: url 'jdbc:nosuchdb://app:***@")
        .hasMessageContaining("has no JDBC driver here")
        .hasMessageNotContaining("hunter22");
  }

  @Test
  void mariaDbRefusingThePasswordIsAConfigErrorThatKeepsTheServersSentence() throws Exception {
    TableSink sink =
        (TableSink)
            new TableSinkProvider()
                .create(
                    config(
                        Map.of(
                            "type", "table",
                            "url", MARIADB,
                            "user", "root",
                            "password", "not-the-password-9",
                            "table", "orders",
                            "columns", COLUMNS)));
    try {
      assertThatThrownBy(sink::open)
          .isInstanceOf(ConfigException.class)
          .hasMessageStartingWith("sink table orders at 127.0.0.1:3306/test: ")
          .hasMessageNotContaining("cannot start")
          .hasMessageContaining("refused the credentials")
          .hasMessageContaining("Access denied for user 'root'")
          .hasMessageContaining("(using password: YES)")
          .hasMessageNotContaining("not-the-password-9");
    } finally {
      sink.close();
    }
  }

  @Test
  void theDriversUsingPasswordSentenceIsNotTakenForASecret() {
    assertThat(
            SqlFailures.describe(
                new java.sql.SQLException("Access denied for user 'u'@'h' (using password: YES)")))
        .isEqualTo("Access denied for user 'u'@'h' (using password: YES)");
    // A password that only starts like the sentence is still hidden.
    assertThat(SqlFailures.describe(new java.sql.SQLException("failed (password: YES)x1 ok")))
        .isEqualTo("failed (password: *** ok");
    assertThat(SqlFailures.describe(new java.sql.SQLException("bad url ?password=YES)&a=1")))
        .isEqualTo("bad url ?password=***&a=1");
  }

  @Test
  void aTableNameThatOnlyAPollersNameMakesInvalidIsRefusedNamingThePoller() {
    SinkConfig section =
        config(Map.of("type", "table", "url", MARIADB, "table", "t_{{source}}", "columns", COLUMNS))
            .withKeys(List.of(PollerKey.of("orders", ""), PollerKey.of("orders-eu", "")));

    assertThatThrownBy(() -> new TableSinkProvider().create(section))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "sink.table: 't_{{source}}' renders 't_orders-eu' for poller orders-eu, which is"
                + " invalid: 't_orders-eu' is not a valid table name");
  }

  @Test
  void aConstantTableNameWithSqlInItIsRefusedWhenTheSectionIsRead() {
    assertThatThrownBy(
            () ->
                new TableSinkProvider()
                    .create(
                        config(
                            Map.of(
                                "type",
                                "table",
                                "url",
                                MARIADB,
                                "table",
                                "t1.x; drop table y",
                                "columns",
                                COLUMNS))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "sink.table: 't1.x; drop table y' is invalid: 'x; drop table y' is not a valid table"
                + " name");
  }
}
