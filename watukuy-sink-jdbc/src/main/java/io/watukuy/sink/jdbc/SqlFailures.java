package io.watukuy.sink.jdbc;

import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.regex.Pattern;

/** Tells a database being unreachable or busy from an event or setting it refuses. */
final class SqlFailures {
  // A value after "password:" or "password=", but not MySQL's and MariaDB's "(using password:
  // YES)", which says whether one was sent: taken for a secret it ate the end of the sentence.
  private static final Pattern SECRET =
      Pattern.compile(
          "(?i)((?:password|passwd|pwd|secret|token)\\s*"
              + "(?:=|:(?!\\s*(?:YES|NO)\\)(?![^&;\\s,'\"])))\\s*)[^&;\\s,'\"]+");

  // The password of a user:password@ part of a URL.
  private static final Pattern USER_INFO = Pattern.compile("(//[^/@:]*:)[^/@]*@");

  private SqlFailures() {}

  /**
   * Whether {@code e} is the database's trouble rather than the data's: a connection failure
   * (SQLState class 08), a rolled-back transaction (40: serialization failure, deadlock), an
   * operator intervention or shutdown (57), too few resources (53), a busy SQLite file, or the
   * driver's transient and recoverable exceptions. The batch then stays pending (G1).
   */
  static boolean transientFailure(Throwable t) {
    // Refused credentials never heal by waiting, though drivers report them as a connection
    // failure (MariaDB: SQLNonTransientConnectionException): checked before anything else.
    if (credentialsRefused(t)) return false;
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

  /**
   * Whether the database refused the user or password: SQLState class 28 (invalid authorization),
   * or PostgreSQL's 28P01, anywhere in the cause chain.
   */
  static boolean credentialsRefused(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof java.sql.SQLInvalidAuthorizationSpecException) return true;
      if (c instanceof SQLException e
          && e.getSQLState() != null
          && e.getSQLState().startsWith("28")) return true;
      if (c.getCause() == c) break;
    }
    return false;
  }

  /**
   * A JDBC URL as messages may show it: the password of a {@code user:password@} part and the
   * values of credential-like parameters become {@code ***}.
   */
  static String redactedUrl(String url) {
    return SECRET.matcher(USER_INFO.matcher(url).replaceAll("$1***@")).replaceAll("$1***");
  }

  /** The driver's message on one line, with credential-like values masked. */
  static String describe(Throwable e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return SECRET.matcher(message.replaceAll("\\s*\\R\\s*", "; ")).replaceAll("$1***");
  }
}
