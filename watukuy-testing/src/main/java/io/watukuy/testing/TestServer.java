package io.watukuy.testing;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real server that tests share (a database, a Redis), as a JUnit 5 extension: every test class
 * works in namespaces of its own (a schema, a database, a key prefix) whose names nobody else uses,
 * so test runs on one server never see each other's data, and the extension removes them
 * afterwards.
 *
 * <p>Register it with {@code @RegisterExtension} on a {@code static} field, so it sees the whole
 * class:
 *
 * <pre>{@code
 * @RegisterExtension static final TestPostgres postgres = TestPostgres.local();
 *
 * @BeforeAll static void schema() { schema = postgres.newNamespace("wk_contract"); }  // for the class
 * @Test void works() { String mine = postgres.newNamespace("wk_case"); ... }         // for one test
 * }</pre>
 *
 * <ul>
 *   <li>Before the first test it calls {@link #start()}, which fails at once, with the way to start
 *       the server, when the server is not there.
 *   <li>{@link #newNamespace(String)} and {@link #closeAfter(AutoCloseable)} called during a test
 *       (in a {@code @BeforeEach}, a test method or an {@code @AfterEach}) belong to that test;
 *       called anywhere else (a {@code @BeforeAll}, a static initializer), to the class.
 *   <li>After each test it closes that test's resources, then removes that test's namespaces; after
 *       the class, the class's resources and namespaces, then calls {@link #stop()}. Closing comes
 *       first, so no open client holds a namespace while it is removed.
 * </ul>
 *
 * <p>A server of another kind extends this class (or {@link JdbcTestServer} for a JDBC database)
 * and supplies the form of its names ({@link #namespaceName}), how a namespace is removed ({@link
 * #drop}) and, when it keeps a client, {@link #start()} and {@link #stop()}. Safe for use from
 * several threads of one test.
 *
 * @since 0.1
 */
public abstract class TestServer
    implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback {

  // Random, not seeded: a name must differ from every earlier run's, also one that was killed
  // before it could clean up.
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Object lock = new Object();
  private final Scope forClass = new Scope();
  private final Scope forTest = new Scope();
  private boolean inTest; // Guarded by lock

  /** What one class or one test took: namespaces to remove, resources to close. */
  private static final class Scope {
    final List<String> namespaces = new ArrayList<>();
    final List<AutoCloseable> resources = new ArrayList<>();
  }

  /** Creates the extension; it does no I/O before the first test. */
  protected TestServer() {}

  /**
   * Checks that the server is there and opens whatever client the extension keeps. Called once,
   * before the first test of the class. Does nothing by default.
   *
   * @throws Exception with the way to start the server (or point the tests elsewhere) in its
   *     message when the server cannot be reached
   */
  protected void start() throws Exception {}

  /**
   * Closes what {@link #start()} opened. Called once, after the last test of the class, also when
   * {@code start()} failed. Does nothing by default.
   *
   * @throws Exception when closing fails; the class fails with it
   */
  protected void stop() throws Exception {}

  /**
   * The name of a new namespace in the form the server accepts, such as {@code label + "_" +
   * random} for a schema.
   *
   * @param label what the caller passed to {@link #newNamespace(String)}
   * @param random 16 lowercase hex digits that no other call gets
   * @return the name
   */
  protected abstract String namespaceName(String label, String random);

  /**
   * Removes a namespace and everything in it. Must succeed when it was never created or is already
   * gone.
   *
   * @param namespace a name {@link #newNamespace(String)} returned
   * @throws Exception when the server refuses; the test (or class) fails with it
   */
  protected abstract void drop(String namespace) throws Exception;

  /**
   * A namespace no other test or run uses, removed after the test that took it, or after the class
   * when taken outside a test. Creates nothing on the server: the store under test creates its
   * schema or keys itself, or the caller does.
   *
   * @param label a readable part of the name, such as {@code wk_contract}
   * @return the name
   */
  public final String newNamespace(String label) {
    byte[] bytes = new byte[8];
    RANDOM.nextBytes(bytes);
    String name = namespaceName(label, HexFormat.of().formatHex(bytes));
    synchronized (lock) {
      scope().namespaces.add(name);
    }
    return name;
  }

  /**
   * Removes a namespace the caller named itself, such as one of an exact length, as if {@link
   * #newNamespace(String)} had returned it: after the test that called this, or after the class.
   *
   * @param namespace the name; uniqueness is the caller's part
   * @return {@code namespace}
   */
  public final String dropAfter(String namespace) {
    synchronized (lock) {
      scope().namespaces.add(namespace);
    }
    return namespace;
  }

  /**
   * Closes {@code resource} after the test that called this, or after the class when called outside
   * a test, before any namespace is removed. Resources close in reverse order.
   *
   * @param resource a pool, a connection, a client
   * @param <T> its type
   * @return {@code resource}
   */
  public final <T extends AutoCloseable> T closeAfter(T resource) {
    synchronized (lock) {
      scope().resources.add(resource);
    }
    return resource;
  }

  private Scope scope() {
    return inTest ? forTest : forClass;
  }

  @Override
  public final void beforeAll(ExtensionContext context) throws Exception {
    start();
  }

  @Override
  public final void beforeEach(ExtensionContext context) {
    synchronized (lock) {
      inTest = true;
    }
  }

  @Override
  public final void afterEach(ExtensionContext context) throws Exception {
    try {
      cleanUp(forTest);
    } finally {
      synchronized (lock) {
        inTest = false;
      }
    }
  }

  @Override
  public final void afterAll(ExtensionContext context) throws Exception {
    try {
      cleanUp(forClass);
    } finally {
      stop();
    }
  }

  /** Closes, then removes, everything of one scope; the first failure is thrown at the end. */
  private void cleanUp(Scope scope) throws Exception {
    List<AutoCloseable> resources;
    List<String> namespaces;
    synchronized (lock) {
      resources = new ArrayList<>(scope.resources);
      namespaces = new ArrayList<>(scope.namespaces);
      scope.resources.clear();
      scope.namespaces.clear();
    }
    @Nullable Exception failure = null;
    for (int i = resources.size() - 1; i >= 0; i--) {
      try {
        resources.get(i).close();
      } catch (Exception e) {
        failure = add(failure, e);
      }
    }
    for (String namespace : namespaces) {
      try {
        drop(namespace);
      } catch (Exception e) {
        failure = add(failure, e);
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static Exception add(@Nullable Exception first, Exception next) {
    if (first == null) {
      return next;
    }
    first.addSuppressed(next);
    return first;
  }
}
