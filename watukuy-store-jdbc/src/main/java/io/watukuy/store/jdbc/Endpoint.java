package io.watukuy.store.jdbc;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Locale;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Where a data source points, as {@code host:port/database}, for error messages. Only the host list
 * and the database name are taken from a JDBC URL; its user information and query string (which may
 * carry {@code password=...}) are never kept.
 */
final class Endpoint {

  /**
   * Credentials in a driver message: {@code password=...}, {@code "password": "..."}, and so on.
   */
  private static final Pattern SECRET =
      Pattern.compile(
          "(?i)((?:password|passwd|pwd|secret|token|sslpassword)[\"']?\\s*[=:]\\s*[\"']?)"
              // MariaDB's "Access denied ... (using password: YES)" says whether one was sent
              + "(?!(?:YES|NO)\\))"
              + "[^&;\\s,'\"]+");

  /** Credentials before a host in a URL, {@code //user:password@host}: the password goes. */
  private static final Pattern USER_INFO = Pattern.compile("(//[^/@:\\s]*:)[^/@\\s]*@");

  private static final String[] URL_GETTERS = {"getJdbcUrl", "getUrl", "getURL"};

  private Endpoint() {}

  /**
   * Host and database of {@code dataSource} without I/O: read from its JDBC URL when it exposes one
   * through a public {@code getJdbcUrl()} (HikariCP, c3p0), {@code getUrl()} or {@code getURL()}
   * (pgjdbc's data sources, Commons DBCP, Tomcat JDBC).
   *
   * @return {@code host:port/database}, or {@code null} when the data source does not tell
   */
  static @Nullable String of(DataSource dataSource) {
    for (String getter : URL_GETTERS) {
      try {
        Method m = dataSource.getClass().getMethod(getter);
        if (m.getReturnType() != String.class
            || !Modifier.isPublic(m.getDeclaringClass().getModifiers())) {
          continue;
        }
        Object url = m.invoke(dataSource);
        if (url instanceof String) {
          String endpoint = fromJdbcUrl((String) url);
          if (endpoint != null) {
            return endpoint;
          }
        }
      } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
        // Not a data source that tells its URL; the first connection's metadata will.
      }
    }
    return null;
  }

  /**
   * {@code host:port/database} of a JDBC URL such as {@code
   * jdbc:postgresql://host:5432/db?user=u&password=p}: everything after the database name and any
   * {@code user:password@} before the host are dropped.
   *
   * @param url a JDBC URL
   * @return the endpoint, or {@code null} when {@code url} is not a JDBC URL of that shape
   */
  static @Nullable String fromJdbcUrl(String url) {
    if (!url.toLowerCase(Locale.ROOT).startsWith("jdbc:")) {
      return null;
    }
    String rest = url.substring(5);
    int colon = rest.indexOf(':');
    if (colon < 0) {
      return null;
    }
    rest = rest.substring(colon + 1);
    int query = indexOfAny(rest, "?;");
    if (query >= 0) {
      rest = rest.substring(0, query);
    }
    String hosts;
    String database;
    if (rest.startsWith("//")) {
      rest = rest.substring(2);
      int slash = rest.indexOf('/');
      hosts = slash < 0 ? rest : rest.substring(0, slash);
      database = slash < 0 ? "" : rest.substring(slash + 1);
      int at = hosts.lastIndexOf('@');
      if (at >= 0) {
        hosts = hosts.substring(at + 1);
      }
    } else {
      // jdbc:postgresql:database connects to localhost.
      hosts = "localhost";
      database = rest;
    }
    if (hosts.isEmpty()) {
      hosts = "localhost";
    }
    return hosts + "/" + (database.isEmpty() ? "(default database)" : database);
  }

  /**
   * {@code message} with the values of credential-like settings replaced by {@code ***}.
   *
   * @param message a driver or pool message
   * @return the message, safe to log
   */
  static String redact(String message) {
    String masked = SECRET.matcher(message).replaceAll("$1***");
    return USER_INFO.matcher(masked).replaceAll("$1***@");
  }

  private static int indexOfAny(String s, String chars) {
    for (int i = 0; i < s.length(); i++) {
      if (chars.indexOf(s.charAt(i)) >= 0) {
        return i;
      }
    }
    return -1;
  }
}
