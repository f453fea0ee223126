package io.watukuy.sink.jdbc;

import io.watukuy.ChangeEvent;
import io.watukuy.EventType;
import io.watukuy.sink.EventFormat;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The statements of one table of a sink: the insert (or upsert) with the mapped columns in order,
 * and in mirror mode the delete by identity. Built once per rendered table name, after {@link
 * TableCheck} found the table and its columns.
 */
final class TableStatements {
  private final TableDialect dialect;
  private final List<String> columns;
  private final List<EventField> fields;
  private final EventFormat format;
  private final String write;
  private final String delete;
  private final boolean mirror;

  TableStatements(TableDialect dialect, TableName table, TableSettings settings) {
    this.dialect = dialect;
    this.format = settings.format();
    this.columns = new ArrayList<>(settings.columns().keySet());
    this.fields = new ArrayList<>(settings.columns().values());
    this.mirror = settings.mode() == TableMode.MIRROR;
    if (mirror) {
      String key = TableSettings.column(settings.columns(), EventField.IDENTITY, "mirror");
      String sequence = TableSettings.column(settings.columns(), EventField.SEQUENCE, "mirror");
      List<String> updates = new ArrayList<>();
      for (String c : columns) if (!c.equals(key) && !c.equals(sequence)) updates.add(c);
      updates.add(sequence); // last: MariaDB's assignments see the ones before them
      this.write = dialect.upsert(table, columns, key, updates, sequence);
      this.delete =
          "DELETE FROM "
              + dialect.quote(table)
              + " WHERE "
              + dialect.quote(key)
              + " = ? AND "
              + dialect.quote(sequence)
              + " < ?";
    } else {
      String key = TableSettings.column(settings.columns(), EventField.DELIVERY_KEY, "insert");
      List<String> updates = new ArrayList<>();
      if (settings.onConflict() == OnConflict.UPDATE)
        for (String c : columns) if (!c.equals(key)) updates.add(c);
      this.write = dialect.upsert(table, columns, key, updates, null);
      this.delete = "";
    }
  }

  /**
   * Writes the events in order on {@code c}, in the caller's transaction: runs of writes and of
   * deletes each sent as one JDBC batch, so an item's events keep their order.
   */
  void write(Connection c, List<? extends ChangeEvent<?>> events) throws SQLException {
    try (PreparedStatement upsert = c.prepareStatement(write);
        PreparedStatement remove = mirror ? c.prepareStatement(delete) : null) {
      boolean pendingUpserts = false;
      boolean pendingDeletes = false;
      for (ChangeEvent<?> e : events) {
        if (mirror && e.type() == EventType.DELETED) {
          if (pendingUpserts) {
            upsert.executeBatch();
            pendingUpserts = false;
          }
          remove.setString(1, e.identity());
          remove.setLong(2, e.sequence());
          remove.addBatch();
          pendingDeletes = true;
        } else {
          if (pendingDeletes) {
            remove.executeBatch();
            pendingDeletes = false;
          }
          for (int i = 0; i < fields.size(); i++)
            dialect.bind(upsert, i + 1, fields.get(i), fields.get(i).value(e, format));
          upsert.addBatch();
          pendingUpserts = true;
        }
      }
      if (pendingUpserts) upsert.executeBatch();
      if (pendingDeletes) remove.executeBatch();
    }
  }
}
