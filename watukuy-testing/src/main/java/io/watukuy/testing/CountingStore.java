package io.watukuy.testing;

import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LeasedState;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.StateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A {@link ForwardingStore} that counts the calls that reach its delegate, by method name: what the
 * engine asks of a store, for tests that bound it (docs/architecture.md, "What an idle poll
 * costs"). Every call counts once, whatever it does inside the delegate; {@code capabilities()} and
 * {@code close()}, which reach no database, are not counted. Unlike a plain {@link
 * ForwardingStore}, it forwards {@link StateStore#acquireLeaseAndLoad} and {@link
 * StateStore#saveStateAndRelease} to the delegate, so that a store's single round trip counts as
 * one call.
 *
 * <pre>{@code
 * CountingStore store = new CountingStore(new MemoryStore());
 * Watukuy w = Watukuy.builder().store(store)...build();
 * w.tick();
 * store.reset();
 * clock.advance(interval);
 * w.tick();                                   // an idle poll
 * assertThat(store.calls()).hasSizeLessThanOrEqualTo(2);
 * }</pre>
 *
 * <p>Thread-safe when the delegate is.
 *
 * @since 0.1
 */
public class CountingStore extends ForwardingStore {
  // Guarded by itself
  private final List<String> calls = new ArrayList<>();

  /**
   * A store that counts the calls it forwards to {@code delegate}.
   *
   * @param delegate the store that does the work
   * @throws NullPointerException if {@code delegate} is null
   */
  public CountingStore(StateStore delegate) {
    super(delegate);
  }

  /**
   * The method names of the calls since construction or the last {@link #reset()}, in order.
   *
   * @return a copy
   */
  public List<String> calls() {
    synchronized (calls) {
      return List.copyOf(calls);
    }
  }

  /**
   * How many calls of {@code method} there were since construction or the last {@link #reset()}.
   *
   * @param method a {@link StateStore} method name, such as {@code loadState}
   * @return the count
   */
  public long count(String method) {
    synchronized (calls) {
      return calls.stream().filter(method::equals).count();
    }
  }

  /** Forgets the calls counted so far. */
  public void reset() {
    synchronized (calls) {
      calls.clear();
    }
  }

  private void hit(String method) {
    synchronized (calls) {
      calls.add(method);
    }
  }

  /** Counts every call {@link ForwardingStore} forwards, {@code migrate} included. */
  @Override
  protected void beforeCall(String method) {
    hit(method);
  }

  @Override
  public Optional<LeasedState> acquireLeaseAndLoad(
      PollerKey key, String owner, Duration ttl, Instant now) {
    hit("acquireLeaseAndLoad");
    return delegate.acquireLeaseAndLoad(key, owner, ttl, now);
  }

  @Override
  public boolean saveStateAndRelease(
      PollerKey key, Lease lease, @Nullable ScheduleState expected, StatePatch patch, Instant now) {
    hit("saveStateAndRelease");
    return delegate.saveStateAndRelease(key, lease, expected, patch, now);
  }
}
