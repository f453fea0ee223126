package io.watukuy.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * A {@link TestServer} reached through JDBC ({@link DriverManager}), whose namespaces are schemas
 * or databases. It needs no driver at compile time: the driver is on the test class path of the
 * store module that uses it, so {@code watukuy-testing} forces no database driver on anyone.
 *
 * <p>A database plugs in with its URL, user and password, the statement that removes a namespace
 * and, where a namespace must exist before the store can use it, a method that creates it. MariaDB,
 * whose namespaces are databases:
 *
 * <pre>{@code
 * public final class TestMariaDb extends JdbcTestServer {
 *   public static TestMariaDb local() { return new TestMariaDb(); }
 *   private TestMariaDb() {
 *     super("MariaDB", System.getProperty("watukuy.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test"),
 *         "root", "", "start it (service mariadb start) or point -Dwatukuy.mariadb.url elsewhere");
 *   }
 *   public String newDatabase(String label) {
 *     String name = newNamespace(label);
 *     execute("CREATE DATABASE `" + name + "`");
 *     return name;
 *   }
 *   @Override protected String dropStatement(String name) { return "DROP DATABASE IF EXISTS `" + name + "`"; }
 * }
 * }</pre>
 *
 * @since 0.1
 */
public abstract class JdbcTestServer extends TestServer {
  private final String product;
  private final String url;
  private final @Nullable String user;
  private final @Nullable String password;
  private final String howToStart;

  /**
   * Describes the server. Performs no I/O.
   *
   * @param product the server's name in messages, such as {@code PostgreSQL}
   * @param url the JDBC URL of the database the tests use
   * @param user the user, or null when the URL names it
   * @param password the password, or null when the URL names it or none is needed
   * @param howToStart what to do when the server is not there, for the failure message
   */
  protected JdbcTestServer(
      String product,
      String url,
      @Nullable String user,
      @Nullable String password,
      String howToStart) {
    this.product = product;
    this.url = url;
    this.user = user;
    this.password = password;
    this.howToStart = howToStart;
  }

  /**
   * The JDBC URL of the database the tests use.
   *
   * @return the URL as configured
   */
  public final String url() {
    return url;
  }

  /**
   * The user, when given apart from the URL.
   *
   * @return the user, or null
   */
  public final @Nullable String user() {
    return user;
  }

  /**
   * The password, when given apart from the URL.
   *
   * @return the password, or null
   */
  public final @Nullable String password() {
    return password;
  }

  /**
   * A new connection of its own (not pooled); the caller closes it.
   *
   * @return an open connection to {@link #url()}
   * @throws SQLException when the server refuses
   */
  public final Connection connect() throws SQLException {
    return user == null
        ? DriverManager.getConnection(url)
        : DriverManager.getConnection(url, user, password == null ? "" : password);
  }

  /**
   * Runs one statement on a connection of its own.
   *
   * @param sql the statement
   * @throws IllegalStateException naming the statement when it fails
   */
  public final void execute(String sql) {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  /**
   * The statement that removes a namespace and everything in it, and succeeds when it does not
   * exist: {@code DROP SCHEMA IF EXISTS "x" CASCADE}, {@code DROP DATABASE IF EXISTS `x`}.
   *
   * @param namespace a name {@link #newNamespace(String)} returned
   * @return the statement
   */
  protected abstract String dropStatement(String namespace);

  /** {@inheritDoc} Checks that a connection opens, so a missing server fails every test at once. */
  @Override
  protected void start() {
    try (Connection c = connect()) {
      c.isValid(2);
    } catch (SQLException e) {
      throw new IllegalStateException(
          product + " is not reachable at " + url + " (" + e.getMessage() + "); " + howToStart, e);
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>{@code label}, an underscore and the 16 digits, in lower case: a valid unquoted identifier
   * in SQL when the label is one, at most 63 characters for a label of up to 46.
   */
  @Override
  protected String namespaceName(String label, String random) {
    return (label + "_" + random).toLowerCase(Locale.ROOT);
  }

  @Override
  protected final void drop(String namespace) {
    execute(dropStatement(namespace));
  }

  @Override
  public String toString() {
    return product + " " + url;
  }
}
