package io.watukuy.testing;

import io.watukuy.spi.StateStore;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The store of the running test of a contract suite ({@link StoreContractTest}, {@link
 * CredentialStoreContractTest}): made fresh and migrated before each test, torn down after it. One
 * class so that every suite creates and destroys its stores the same way.
 */
abstract class StoreUnderTest {
  private @Nullable StateStore store;

  /**
   * A fresh, empty store. Called once before each test; the suite calls {@code migrate()} on it.
   *
   * @return a store that shares no data with stores returned earlier
   */
  protected abstract StateStore newStore();

  /**
   * Tears down a store after a test. Defaults to {@link StateStore#close()}; override to also drop
   * tables, schemas, files or keys. Called once per test, also when the test has already closed the
   * store.
   *
   * @param store the store returned by {@link #newStore()} for the test that just ran
   */
  protected void destroy(StateStore store) {
    store.close();
  }

  /**
   * The store of the running test.
   *
   * @throws IllegalStateException if called outside a test
   */
  final StateStore current() {
    StateStore s = store;
    if (s == null) {
      throw new IllegalStateException("no store: called outside a test");
    }
    return s;
  }

  @BeforeEach
  final void createStore() {
    StateStore s = newStore();
    store = s;
    s.migrate();
  }

  @AfterEach
  final void destroyStore() {
    StateStore s = store;
    store = null;
    if (s != null) {
      destroy(s);
    }
  }
}
