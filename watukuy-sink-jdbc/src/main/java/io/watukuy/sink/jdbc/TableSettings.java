package io.watukuy.sink.jdbc;

import io.watukuy.sink.Destination;
import io.watukuy.sink.EventFormat;
import io.watukuy.sink.SinkConfig;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A table sink's settings (docs/sinks.md, "Database tables"): where, how and what it writes.
 * Immutable; built with the constructor in Java or from a {@code sink: {type: table}} section.
 *
 * @param url the JDBC URL of the sink's own connections; null with {@code sameDatabase}
 * @param user the user, or null (or in the URL)
 * @param password the password, or null; never shown
 * @param table the table, may use {@code {{source}}} and {@code {{partition}}}
 * @param mode insert or mirror
 * @param columns table column → event field, in the order given
 * @param onConflict what insert mode does with a delivery key already there
 * @param sameDatabase whether the table lives in the store's database, written in the store's
 *     transaction with the batch's ack (exactly-once into that table)
 * @param format how {@code data} and {@code event} columns are written
 * @since 0.2
 */
public record TableSettings(
    @Nullable String url,
    @Nullable String user,
    @Nullable String password,
    Destination table,
    TableMode mode,
    Map<String, EventField> columns,
    OnConflict onConflict,
    boolean sameDatabase,
    EventFormat format) {

  /** The keys of a {@code sink: {type: table}} section. */
  static final String[] KEYS = {
    "url", "user", "password", "table", "mode", "columns", "onConflict", "sameDatabase"
  };

  /**
   * Checks the settings.
   *
   * @throws IllegalArgumentException when a column name is not an identifier, a required column is
   *     missing ({@code deliveryKey} in insert mode; {@code identity} and {@code sequence} in
   *     mirror mode), or {@code url} and {@code sameDatabase} are both set or both missing
   * @throws NullPointerException for a null required argument
   */
  public TableSettings {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(onConflict, "onConflict");
    Objects.requireNonNull(format, "format");
    columns = Collections.unmodifiableMap(new LinkedHashMap<>(columns));
    if (columns.isEmpty())
      throw new IllegalArgumentException(
          "columns: map at least one table column to an event field");
    for (String column : columns.keySet()) TableName.identifier(column, "column name");
    if (mode == TableMode.INSERT) column(columns, EventField.DELIVERY_KEY, "insert");
    else {
      column(columns, EventField.IDENTITY, "mirror");
      column(columns, EventField.SEQUENCE, "mirror");
    }
    if (sameDatabase && url != null)
      throw new IllegalArgumentException(
          "url: sameDatabase: true writes on the store's own connection; remove url");
    if (!sameDatabase && url == null)
      throw new IllegalArgumentException(
          "url: missing (the JDBC URL of the table's database), or set sameDatabase: true");
  }

  /**
   * The column mapped to {@code field}.
   *
   * @throws IllegalArgumentException when none is
   */
  static String column(Map<String, EventField> columns, EventField field, String mode) {
    for (Map.Entry<String, EventField> e : columns.entrySet())
      if (e.getValue() == field) return e.getKey();
    throw new IllegalArgumentException(
        "columns: "
            + mode
            + " mode needs a column mapped to "
            + field.wire()
            + (field == EventField.DELIVERY_KEY
                ? " (the conflict key that makes a redelivered batch meet its own rows)"
                : field == EventField.IDENTITY
                    ? " (the mirror table's key)"
                    : " (so an older event never overwrites a newer row)"));
  }

  /**
   * The settings of a {@code sink: {type: table}} section; refuses unknown keys.
   *
   * @param config the section
   * @return the settings
   * @throws io.watukuy.ConfigException naming the key and the value
   */
  static TableSettings of(SinkConfig config) {
    config.only(KEYS);
    // Every poller's table name is checked now: the name is quoted and pasted into SQL.
    Destination table =
        config.destination(
            "table",
            "the table to write to",
            rendered -> {
              try {
                TableName.parse(rendered);
                return null;
              } catch (IllegalArgumentException e) {
                return e.getMessage();
              }
            });
    TableMode mode = choice(config, "mode", TableMode.class, TableMode.INSERT);
    OnConflict onConflict = choice(config, "onConflict", OnConflict.class, OnConflict.IGNORE);
    if (mode == TableMode.MIRROR && config.has("onConflict"))
      throw config.error(
          "onConflict", "applies to mode: insert; a mirror table always keeps the newest event");
    SinkConfig columnsSection = config.child("columns");
    Map<String, EventField> columns = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : config.strings("columns").entrySet()) {
      try {
        TableName.identifier(e.getKey(), "column name");
        columns.put(e.getKey(), EventField.fromWire(e.getValue()));
      } catch (IllegalArgumentException bad) {
        throw columnsSection.error(e.getKey(), bad.getMessage());
      }
    }
    boolean sameDatabase = config.bool("sameDatabase", false);
    String url = config.string("url");
    String noDriver = url == null ? null : noDriver(url);
    if (noDriver != null) throw config.error("url", noDriver);
    try {
      return new TableSettings(
          config.string("url"),
          config.string("user"),
          config.string("password"),
          table,
          mode,
          columns,
          onConflict,
          sameDatabase,
          config.format());
    } catch (IllegalArgumentException e) {
      String message = String.valueOf(e.getMessage());
      int colon = message.indexOf(": ");
      if (colon < 0) throw config.error(message);
      throw config.error(message.substring(0, colon), message.substring(colon + 2));
    }
  }

  /**
   * Why no JDBC driver here takes {@code url}, or null when one does: a driver is on the class path
   * or it is not, so this is a config error, never an outage to wait out.
   *
   * @return e.g. {@code 'jdbc:oracle:thin:@db:1521/x' has no JDBC driver here (jdbc:postgresql:,
   *     jdbc:mariadb: and jdbc:sqlite: have one)}, the URL's credentials redacted
   */
  static @Nullable String noDriver(String url) {
    try {
      java.sql.DriverManager.getDriver(url);
      return null;
    } catch (java.sql.SQLException e) {
      return "'"
          + SqlFailures.redactedUrl(url)
          + "' has no JDBC driver here (jdbc:postgresql:, jdbc:mariadb: and jdbc:sqlite: have one)";
    }
  }

  private static <E extends Enum<E>> E choice(
      SinkConfig config, String key, Class<E> type, E fallback) {
    String text = config.string(key);
    if (text == null) return fallback;
    try {
      return Enum.valueOf(type, text.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      StringBuilder allowed = new StringBuilder();
      for (E c : type.getEnumConstants()) {
        if (allowed.length() > 0) allowed.append(" | ");
        allowed.append(c.name().toLowerCase(Locale.ROOT));
      }
      throw config.error(key, "'" + text + "' is not one of " + allowed);
    }
  }

  /** Never the password. */
  @Override
  public String toString() {
    return "TableSettings[table="
        + table
        + ", mode="
        + mode
        + ", sameDatabase="
        + sameDatabase
        + "]";
  }
}
