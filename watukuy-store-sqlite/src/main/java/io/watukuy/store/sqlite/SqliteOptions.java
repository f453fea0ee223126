package io.watukuy.store.sqlite;

import io.watukuy.ConfigException;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The validated settings of one {@link SqliteStore}.
 *
 * @param location the database file path as given, or {@value SqliteStore#MEMORY}
 * @param tablePrefix prepended to every table and index name
 * @param busyTimeoutMs how long a statement waits for another connection's lock, in milliseconds
 */
record SqliteOptions(String location, String tablePrefix, int busyTimeoutMs) {

  /**
   * The prefix is inlined into SQL text (identifiers cannot be bound as parameters), so only plain
   * identifiers are accepted; 41 characters leave room for the longest suffix.
   */
  static final Pattern TABLE_PREFIX = Pattern.compile("^[A-Za-z_][A-Za-z0-9_]{0,40}$");

  SqliteOptions {
    Objects.requireNonNull(location, "location");
    checkLocation(location);
    checkTablePrefix(tablePrefix);
    checkBusyTimeout(busyTimeoutMs);
  }

  boolean inMemory() {
    return SqliteStore.MEMORY.equals(location);
  }

  static void checkLocation(String location) {
    if (location.isBlank()) {
      throw new ConfigException(
          "path must name a database file or be '" + SqliteStore.MEMORY + "', but was blank");
    }
  }

  static void checkTablePrefix(String tablePrefix) {
    Objects.requireNonNull(tablePrefix, "tablePrefix");
    if (!TABLE_PREFIX.matcher(tablePrefix).matches()) {
      throw new ConfigException(
          "tablePrefix must be an SQL identifier of 1 to 41 letters, digits and '_', not starting"
              + " with a digit ("
              + TABLE_PREFIX.pattern()
              + "), but was '"
              + tablePrefix
              + "'");
    }
    // SQLite keeps names starting with sqlite_ for itself, in any case, and refuses to create
    // them only when the first table is made: refuse here, where the config is read.
    if (tablePrefix.regionMatches(true, 0, "sqlite_", 0, 7)) {
      throw new ConfigException(
          "tablePrefix must not start with 'sqlite_' (SQLite reserves those names for itself),"
              + " but was '"
              + tablePrefix
              + "'");
    }
  }

  static int checkBusyTimeout(long busyTimeoutMs) {
    if (busyTimeoutMs < 0 || busyTimeoutMs > Integer.MAX_VALUE) {
      throw new ConfigException(
          "busyTimeoutMs must be between 0 and "
              + Integer.MAX_VALUE
              + " milliseconds, but was "
              + busyTimeoutMs);
    }
    return (int) busyTimeoutMs;
  }
}
