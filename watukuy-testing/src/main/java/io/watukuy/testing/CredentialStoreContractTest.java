package io.watukuy.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.PollerKey;
import io.watukuy.spi.CredentialStore;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.StateStore;
import io.watukuy.spi.StoredCredential;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link CredentialStore} passes (docs/stores.md, "CredentialStore"): inserts
 * with version 0, the compare-and-set on the version, the sealed secret kept exactly, claims and
 * instants kept to the millisecond, delete, the sorted list of names, names that are hostile to a
 * key layout, and the compare-and-set under a race of threads.
 *
 * <p>Every store module's {@link StateStore} implements {@link CredentialStore} in the same
 * database as the poller state, so the suite takes a {@code StateStore} and checks that promise
 * first; it calls {@link StateStore#migrate()} before each test and {@link #destroy} after it:
 *
 * <pre>{@code
 * class MyCredentialStoreContractTest extends CredentialStoreContractTest {
 *   @Override protected StateStore newStore() { return new MyStore(freshSchema()); }
 * }
 * }</pre>
 *
 * <p>Every instant is {@link #T0} plus whole milliseconds, except in the one test that checks that
 * a finer instant comes back exact or truncated to the millisecond, so a store may keep instants in
 * milliseconds. Threads are bounded by {@link #THREAD_WAIT}; nothing sleeps.
 *
 * @since 0.2
 */
public abstract class CredentialStoreContractTest extends StoreUnderTest {

  /** The instant every test starts at. */
  protected static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");

  /** Bound on any wait for worker threads. */
  private static final Duration THREAD_WAIT = Duration.ofSeconds(60);

  /** Threads racing one compare-and-set. */
  private static final int RACERS = 8;

  /** Versions the writer of {@link #aReaderNeverSeesATornRow()} writes. */
  private static final int TORN_VERSIONS = 200;

  /** Names that break naive key layouts: separators, hash tags, glob characters, spaces. */
  private static final List<String> HOSTILE_NAMES =
      List.of(
          "plain",
          "a:b",
          ":",
          "{",
          "}",
          "{tag}",
          "{plain}",
          "*",
          "plain*",
          "?",
          "[ab]",
          "with space",
          " leading",
          "trailing ",
          "ünïcødé",
          "日本語",
          "😀 emoji",
          "quote'\"",
          "back\\slash",
          "%_like",
          "x".repeat(200));

  /**
   * The store of the running test, as the state store it also is.
   *
   * @return the store {@link #newStore()} returned for this test
   * @throws IllegalStateException if called outside a test
   */
  protected final StateStore stateStore() {
    return current();
  }

  /**
   * The store of the running test, as a credential store.
   *
   * @return the store {@link #newStore()} returned for this test
   */
  protected final CredentialStore credentials() {
    return (CredentialStore) stateStore();
  }

  // ------------------------------------------------------------------ fixtures

  private static StoredCredential row(String name, long version, String sealed) {
    return new StoredCredential(name, version, sealed, null, null, T0.plusMillis(version));
  }

  private static StoredCredential claimed(
      String name, long version, String sealed, String owner, Instant until) {
    return new StoredCredential(name, version, sealed, owner, until, T0.plusMillis(version));
  }

  private Optional<StoredCredential> load(String name) {
    return credentials().loadCredential(name);
  }

  private void insert(StoredCredential row) {
    assertThat(credentials().compareAndSetCredential(0, row))
        .as("insert of %s", row.name())
        .isTrue();
  }

  // ------------------------------------------------------------------ the promise

  @Test
  void theStateStoreIsACredentialStoreAndStartsEmpty() {
    assertThat(stateStore()).isInstanceOf(CredentialStore.class);
    assertThat(credentials().listCredentials()).isEmpty();
    assertThat(load("refresh")).isEmpty();
  }

  // ------------------------------------------------------------------ insert

  @Test
  void anInsertWithVersionZeroWritesTheRow() {
    StoredCredential first = row("refresh", 1, "sealed-1");

    assertThat(credentials().compareAndSetCredential(0, first)).isTrue();

    assertThat(load("refresh")).contains(first);
  }

  @Test
  void aSecondInsertWithVersionZeroReturnsFalseAndLeavesTheRow() {
    StoredCredential first = claimed("refresh", 1, "sealed-1", "instance-a", T0.plusSeconds(30));
    insert(first);

    boolean second = credentials().compareAndSetCredential(0, row("refresh", 1, "sealed-other"));

    assertThat(second).isFalse();
    assertThat(load("refresh")).contains(first);
  }

  @Test
  void anInsertWithVersionZeroAfterUpdatesReturnsFalse() {
    insert(row("refresh", 1, "sealed-1"));
    assertThat(credentials().compareAndSetCredential(1, row("refresh", 2, "sealed-2"))).isTrue();

    assertThat(credentials().compareAndSetCredential(0, row("refresh", 1, "sealed-x"))).isFalse();

    assertThat(load("refresh")).contains(row("refresh", 2, "sealed-2"));
  }

  // ------------------------------------------------------------------ compare-and-set

  @Test
  void aCompareAndSetWithTheStoredVersionWritesEveryField() {
    insert(row("refresh", 1, "sealed-1"));
    StoredCredential claim =
        claimed("refresh", 2, "sealed-1", "instance-a", T0.plus(Duration.ofSeconds(30)));
    StoredCredential refreshed = row("refresh", 3, "sealed-3");

    assertThat(credentials().compareAndSetCredential(1, claim)).isTrue();
    assertThat(load("refresh")).contains(claim);
    assertThat(credentials().compareAndSetCredential(2, refreshed)).isTrue();

    assertThat(load("refresh")).contains(refreshed);
    assertThat(load("refresh").orElseThrow().claimOwner()).isNull();
  }

  @Test
  void aCompareAndSetWithAStaleOrFutureVersionReturnsFalseAndChangesNothing() {
    insert(row("refresh", 1, "sealed-1"));
    StoredCredential current = row("refresh", 2, "sealed-2");
    assertThat(credentials().compareAndSetCredential(1, current)).isTrue();

    assertThat(credentials().compareAndSetCredential(1, row("refresh", 2, "stale"))).isFalse();
    assertThat(credentials().compareAndSetCredential(5, row("refresh", 6, "future"))).isFalse();

    assertThat(load("refresh")).contains(current);
  }

  @Test
  void aCompareAndSetOfAMissingRowReturnsFalseAndCreatesNothing() {
    assertThat(credentials().compareAndSetCredential(1, row("missing", 2, "sealed"))).isFalse();

    assertThat(load("missing")).isEmpty();
    assertThat(credentials().listCredentials()).isEmpty();
  }

  @Test
  void aNextVersionOtherThanExpectedPlusOneIsRefusedAndWritesNothing() {
    assertThatThrownBy(() -> credentials().compareAndSetCredential(0, row("refresh", 2, "s")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(load("refresh")).isEmpty();

    StoredCredential first = row("refresh", 1, "sealed-1");
    insert(first);
    assertThatThrownBy(() -> credentials().compareAndSetCredential(1, row("refresh", 1, "same")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> credentials().compareAndSetCredential(1, row("refresh", 3, "skip")))
        .isInstanceOf(IllegalArgumentException.class);

    assertThat(load("refresh")).contains(first);
  }

  // ------------------------------------------------------------------ what a row keeps

  @Test
  void theSealedSecretRoundTripsExactly() {
    StringBuilder big = new StringBuilder(16 * 1024);
    String pattern = "aé日😀'\";\\:{}%\n\r\t ";
    while (big.length() < 16 * 1024) {
      big.append(pattern);
    }
    big.setLength(16 * 1024);
    if (Character.isHighSurrogate(big.charAt(big.length() - 1))) {
      big.setCharAt(big.length() - 1, 'z');
    }
    List<String> values =
        List.of(
            "v1.kid-2024.AbCd+/==",
            "ñandú, 日本語, emoji 😀, ünïcødé",
            "'\";\\:{}%",
            "line one\nline two\r\nline three\n",
            "  padded both sides  ",
            "\t",
            "",
            big.toString());
    for (int i = 0; i < values.size(); i++) {
      String name = "secret-" + i;
      insert(row(name, 1, values.get(i)));
      assertThat(load(name).orElseThrow().sealed())
          .as("sealed value %d", i)
          .isEqualTo(values.get(i));
    }
    // And through an update.
    assertThat(
            credentials().compareAndSetCredential(1, row("secret-0", 2, big.reverse().toString())))
        .isTrue();
    assertThat(load("secret-0").orElseThrow().sealed()).isEqualTo(big.toString());
  }

  @Test
  void claimFieldsAndUpdatedAtRoundTripToTheMillisecond() {
    Instant until = T0.plus(Duration.ofMinutes(5)).plusMillis(123);
    Instant at = T0.plusMillis(987);
    StoredCredential row =
        new StoredCredential("refresh", 1, "sealed", "instance-ü:{a}", until, at);
    insert(row);

    StoredCredential loaded = load("refresh").orElseThrow();
    assertThat(loaded).isEqualTo(row);
    assertThat(loaded.claimUntil()).isEqualTo(until);
    assertThat(loaded.updatedAt()).isEqualTo(at);

    // A finer instant comes back exact or truncated to the millisecond, never otherwise changed.
    Instant fine = T0.plusNanos(5_432_123);
    StoredCredential next = row.next("sealed-2", "instance-b", fine, fine);
    assertThat(credentials().compareAndSetCredential(1, next)).isTrue();
    StoredCredential again = load("refresh").orElseThrow();
    assertThat(again.claimUntil()).isIn(fine, T0.plusMillis(5));
    assertThat(again.updatedAt()).isIn(fine, T0.plusMillis(5));
    assertThat(again.claimOwner()).isEqualTo("instance-b");
  }

  // ------------------------------------------------------------------ delete and list

  @Test
  void deleteReturnsTrueOnceAndTheNameCanBeInsertedAgain() {
    insert(row("refresh", 1, "sealed-1"));
    assertThat(credentials().compareAndSetCredential(1, row("refresh", 2, "sealed-2"))).isTrue();

    assertThat(credentials().deleteCredential("refresh")).isTrue();
    assertThat(credentials().deleteCredential("refresh")).isFalse();
    assertThat(credentials().deleteCredential("never-written")).isFalse();

    assertThat(load("refresh")).isEmpty();
    assertThat(credentials().compareAndSetCredential(2, row("refresh", 3, "after"))).isFalse();
    insert(row("refresh", 1, "again"));
    assertThat(load("refresh")).contains(row("refresh", 1, "again"));
  }

  @Test
  void listIsSortedAndHoldsNoRowOfAnotherTable() {
    // Rows of other tables, some named like credentials.
    PollerKey key = PollerKey.of("github");
    stateStore().saveStateUnfenced(key, StatePatch.NONE.withCursors(Map.of("c", "1")), T0);
    stateStore().acquireLease(PollerKey.of("refresh-b"), "instance-a", Duration.ofSeconds(30), T0);
    for (String name : List.of("refresh-b", "Zeta", "alpha", "a", "é", "a b", "refresh-a")) {
      insert(row(name, 1, "sealed-" + name));
    }

    List<String> names = credentials().listCredentials();

    assertThat(names).containsExactly("Zeta", "a", "a b", "alpha", "refresh-a", "refresh-b", "é");
    assertThat(stateStore().listKeys(null)).contains(key);
  }

  @Test
  void namesThatBreakNaiveKeyLayoutsAreDistinctRows() {
    for (int i = 0; i < HOSTILE_NAMES.size(); i++) {
      insert(row(HOSTILE_NAMES.get(i), 1, "sealed-" + i));
    }

    for (int i = 0; i < HOSTILE_NAMES.size(); i++) {
      assertThat(load(HOSTILE_NAMES.get(i)))
          .as("name %s", HOSTILE_NAMES.get(i))
          .contains(row(HOSTILE_NAMES.get(i), 1, "sealed-" + i));
    }
    assertThat(credentials().listCredentials())
        .containsExactlyElementsOf(HOSTILE_NAMES.stream().sorted().toList());

    // Writing or deleting one touches no other, glob characters included.
    assertThat(credentials().compareAndSetCredential(1, row("*", 2, "star-2"))).isTrue();
    assertThat(credentials().deleteCredential("plain*")).isTrue();
    assertThat(credentials().deleteCredential("{plain}")).isTrue();
    assertThat(load("plain")).contains(row("plain", 1, "sealed-0"));
    assertThat(load("{tag}")).contains(row("{tag}", 1, "sealed-5"));
    assertThat(load("*")).contains(row("*", 2, "star-2"));
    assertThat(credentials().listCredentials()).hasSize(HOSTILE_NAMES.size() - 2);
    assertThat(load("unknown:{x}*")).isEmpty();
  }

  // ------------------------------------------------------------------ concurrency

  @Test
  void racingInsertsWithVersionZeroHaveExactlyOneWinner() throws Exception {
    List<Boolean> results =
        race(i -> credentials().compareAndSetCredential(0, row("r", 1, "w" + i)));

    assertThat(results).filteredOn(b -> b).hasSize(1);
    int winner = results.indexOf(true);
    assertThat(load("r")).contains(row("r", 1, "w" + winner));
  }

  @Test
  void racingCompareAndSetsOfOneVersionHaveExactlyOneWinner() throws Exception {
    insert(row("r", 1, "sealed-1"));

    List<Boolean> results =
        race(
            i ->
                credentials()
                    .compareAndSetCredential(
                        1, claimed("r", 2, "sealed-1", "instance-" + i, T0.plusSeconds(30))));

    assertThat(results).filteredOn(b -> b).hasSize(1);
    int winner = results.indexOf(true);
    assertThat(load("r"))
        .contains(claimed("r", 2, "sealed-1", "instance-" + winner, T0.plusSeconds(30)));
  }

  @Test
  void aReaderNeverSeesATornRow() throws Exception {
    insert(torn(1));
    AtomicBoolean done = new AtomicBoolean();
    AtomicInteger reads = new AtomicInteger();
    CountDownLatch readersStarted = new CountDownLatch(2);
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      Future<?> writer =
          pool.submit(
              () -> {
                try {
                  assertThat(readersStarted.await(THREAD_WAIT.toSeconds(), TimeUnit.SECONDS))
                      .isTrue();
                  for (int v = 2; v <= TORN_VERSIONS; v++) {
                    assertThat(credentials().compareAndSetCredential(v - 1, torn(v))).isTrue();
                  }
                } finally {
                  done.set(true);
                }
                return null;
              });
      List<Future<?>> readers = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        readers.add(
            pool.submit(
                () -> {
                  long last = 0;
                  readersStarted.countDown();
                  // Bounded: the writer's loop ends, and so does this one after it (at least a
                  // few reads each, however fast the writer was).
                  for (int n = 0; n < 20 || !done.get(); n++) {
                    StoredCredential seen = load("torn").orElseThrow();
                    assertThat(seen).isEqualTo(torn(seen.version()));
                    assertThat(seen.version()).isGreaterThanOrEqualTo(last);
                    last = seen.version();
                    reads.incrementAndGet();
                  }
                  return null;
                }));
      }
      writer.get(THREAD_WAIT.toSeconds(), TimeUnit.SECONDS);
      for (Future<?> reader : readers) {
        reader.get(THREAD_WAIT.toSeconds(), TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(THREAD_WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    }
    assertThat(load("torn")).contains(torn(TORN_VERSIONS));
    assertThat(reads.get()).isPositive();
  }

  /** Version {@code v} of the torn-read row: every field derived from {@code v}. */
  private static StoredCredential torn(long v) {
    String sealed = ("v" + v + ";").repeat((int) (v % 7) * 100 + 1);
    return v % 2 == 0
        ? claimed("torn", v, sealed, "owner-" + v, T0.plusSeconds(v))
        : row("torn", v, sealed);
  }

  /** A call every racer makes at once, with its index. */
  @FunctionalInterface
  private interface Racer {
    boolean run(int index);
  }

  /** Runs {@link #RACERS} threads released together; their results by index. */
  private List<Boolean> race(Racer racer) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(RACERS);
    CountDownLatch ready = new CountDownLatch(RACERS);
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<Boolean>> futures = new ArrayList<>();
      for (int i = 0; i < RACERS; i++) {
        int index = i;
        futures.add(
            pool.submit(
                () -> {
                  ready.countDown();
                  assertThat(go.await(THREAD_WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
                  return racer.run(index);
                }));
      }
      assertThat(ready.await(THREAD_WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      go.countDown();
      List<Boolean> results = new ArrayList<>();
      for (Future<Boolean> f : futures) {
        results.add(f.get(THREAD_WAIT.toSeconds(), TimeUnit.SECONDS));
      }
      return results;
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(THREAD_WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    }
  }
}
