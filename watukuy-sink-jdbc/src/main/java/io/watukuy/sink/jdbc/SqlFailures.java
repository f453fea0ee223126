package io.watukuy.sink.jdbc;

import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.regex.Pattern;

/** Tells a database being unreachable or busy from an event or setting it refuses. */
final class SqlFailures {
  private static final Pattern SECRET =
      Pattern.compile("(?i)((?:password|passwd|pwd|secret|token)\\s*[=:]\\s*)[^&;\\s,'\"]+");

  private SqlFailures() {}

  /**
   * Whether {@code e} is the database's trouble rather than the data's: a connection failure
   * (SQLState class 08), a rolled-back transaction (40: serialization failure, deadlock), an
   * operator intervention or shutdown (57), too few resources (53), a busy SQLite file, or the
   * driver's transient and recoverable exceptions. The batch then stays pending (G1).
   */
  static boolean transientFailure(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof SQLTransientException || c instanceof SQLRecoverableException) return true;
      if (c instanceof java.sql.SQLNonTransientConnectionException) return true;
      if (c instanceof SQLException e) {
        String state = e.getSQLState();
        if (state != null
            && (state.startsWith("08")
                || state.startsWith("40")
                || state.startsWith("57")
                || state.startsWith("53"))) return true;
        String message = String.valueOf(e.getMessage());
        if (message.contains("SQLITE_BUSY") || message.contains("SQLITE_LOCKED")) return true;
      }
      if (c instanceof java.io.IOException) return true;
    }
    return false;
  }

  /** The driver's message on one line, with credential-like values masked. */
  static String describe(Throwable e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return SECRET.matcher(message.replaceAll("\\s*\\R\\s*", "; ")).replaceAll("$1***");
  }
}
