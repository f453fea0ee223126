package io.watukuy.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.PollerKey;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The statements a dialect gets from the SPI's defaults: what a new dialect inherits before it
 * overrides anything.
 */
class RowBatchTest {
  static final PollerKey KEY = new PollerKey("orders", "eu");

  /** Only what a dialect must implement; every default kept. */
  static final SqlDialect PLAIN =
      new SqlDialect() {
        @Override
        public String tableName(StoreTable table) {
          return "w_" + table.suffix();
        }

        @Override
        public void setInstant(PreparedStatement ps, int index, @Nullable Instant at) {}

        @Override
        public @Nullable Instant getInstant(ResultSet rs, int index) {
          return null;
        }

        @Override
        public boolean isUndefinedTable(SQLException e) {
          return false;
        }

        @Override
        public String messagePrefix(String where) {
          return "test store " + where + ": ";
        }

        @Override
        public int schemaVersion() {
          return 1;
        }

        @Override
        public String createMetaTable() {
          return "CREATE TABLE IF NOT EXISTS w_meta (name TEXT PRIMARY KEY, value TEXT)";
        }

        @Override
        public List<String> migrationStatements(@Nullable Integer from) {
          return List.of();
        }
      };

  static final List<Column> COLUMNS =
      List.of(
          new Column("seq", ColumnType.LONG),
          new Column("event", ColumnType.JSON),
          new Column("created_at", ColumnType.INSTANT));

  @Test
  void aPlainInsertNamesTheKeyThenTheColumns() {
    RowBatch batch =
        new RowBatch("w_log", KEY, COLUMNS, List.<@Nullable Object[]>of(row(1, "a")), List.of());

    assertThat(batch.upsert()).isFalse();
    assertThat(batch.statement(PLAIN))
        .isEqualTo(
            "INSERT INTO w_log (poller, \"partition\", seq, event, created_at)"
                + " VALUES (?, ?, ?, ?, ?)");
  }

  @Test
  void anUpsertReplacesEveryColumnOutsideThePrimaryKey() {
    RowBatch batch =
        new RowBatch(
            "w_log", KEY, COLUMNS, List.<@Nullable Object[]>of(row(1, "a")), List.of("seq"));

    assertThat(batch.keyColumns(PLAIN)).containsExactly("poller", "\"partition\"", "seq");
    assertThat(batch.updatedColumns()).containsExactly("event", "created_at");
    assertThat(batch.statement(PLAIN))
        .endsWith(
            " ON CONFLICT (poller, \"partition\", seq) DO UPDATE SET"
                + " event = excluded.event, created_at = excluded.created_at");
  }

  @Test
  void anInsertIfAbsentHasNothingToUpdate() {
    assertThat(PLAIN.upsert("INSERT INTO t (a) VALUES (?)", List.of("a"), List.of()))
        .isEqualTo("INSERT INTO t (a) VALUES (?) ON CONFLICT (a) DO NOTHING");
  }

  @Test
  void lastPerKeyKeepsTheLastRowOfEachKeyInTheOrderOfThoseRows() {
    Object[] a1 = row(1, "a1");
    Object[] b = row(2, "b");
    Object[] a2 = row(1, "a2");
    RowBatch upsert =
        new RowBatch("w_log", KEY, COLUMNS, List.<@Nullable Object[]>of(a1, b, a2), List.of("seq"));
    RowBatch insert =
        new RowBatch("w_log", KEY, COLUMNS, List.<@Nullable Object[]>of(a1, b, a2), List.of());

    assertThat(upsert.lastPerKey()).containsExactly(b, a2);
    // A plain insert keeps its duplicates, so that the database refuses them.
    assertThat(insert.lastPerKey()).containsExactly(a1, b, a2);
  }

  @Test
  void listsAreInListsOfAtMostFiveHundredValuesByDefault() {
    assertThat(PLAIN.inList("id", 3)).isEqualTo("id IN (?, ?, ?)");
    assertThat(PLAIN.maxListSize()).isEqualTo(500);
    assertThat(PLAIN.selectItems(List.of("identity", "hash"), 2))
        .isEqualTo(
            "SELECT identity, hash FROM w_items WHERE identity IN (?, ?)"
                + " AND poller = ? AND \"partition\" = ?");
  }

  @Test
  void rowsMustMatchTheColumnsAndConflictColumnsMustBeColumns() {
    assertThatThrownBy(
            () ->
                new RowBatch(
                    "w_log", KEY, COLUMNS, List.<@Nullable Object[]>of(new Object[2]), List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("2 values for 3 columns");
    assertThatThrownBy(() -> new RowBatch("w_log", KEY, COLUMNS, List.of(), List.of("id")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("id");
  }

  private static Object[] row(long seq, String event) {
    return new Object[] {seq, event, Instant.EPOCH};
  }
}
