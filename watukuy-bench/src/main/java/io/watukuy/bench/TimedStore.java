package io.watukuy.bench;

import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.HttpValidator;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LeasedState;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.StateStore;
import io.watukuy.testing.ForwardingStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A store that adds up the wall time and the number of calls of each store method the engine makes,
 * so that a phase's time splits into store time and the rest (fetch, JSON, diff, events, delivery)
 * without a profiler. Timing costs two {@link System#nanoTime()} per call.
 */
final class TimedStore extends ForwardingStore {

  /** Calls and seconds of one method. */
  record Usage(long calls, double seconds) {}

  private final Map<String, LongAdder[]> usage = new ConcurrentHashMap<>();

  TimedStore(StateStore delegate) {
    super(delegate);
  }

  /** The usage since the last call, by method name, and starts counting anew. */
  Map<String, Usage> drain() {
    Map<String, Usage> out = new TreeMap<>();
    usage.forEach(
        (name, a) -> {
          long calls = a[0].sumThenReset();
          long nanos = a[1].sumThenReset();
          if (calls > 0) out.put(name, new Usage(calls, nanos / 1e9));
        });
    return out;
  }

  private <T> T time(String name, Supplier<T> call) {
    long start = System.nanoTime();
    try {
      return call.get();
    } finally {
      LongAdder[] a =
          usage.computeIfAbsent(name, k -> new LongAdder[] {new LongAdder(), new LongAdder()});
      a[0].increment();
      a[1].add(System.nanoTime() - start);
    }
  }

  private void run(String name, Runnable call) {
    time(
        name,
        () -> {
          call.run();
          return null;
        });
  }

  @Override
  public Optional<Lease> acquireLease(PollerKey key, String owner, Duration ttl, Instant now) {
    return time("acquireLease", () -> delegate.acquireLease(key, owner, ttl, now));
  }

  @Override
  public Optional<Lease> renewLease(PollerKey key, Lease lease, Duration ttl, Instant now) {
    return time("renewLease", () -> delegate.renewLease(key, lease, ttl, now));
  }

  @Override
  public void releaseLease(PollerKey key, Lease lease) {
    run("releaseLease", () -> delegate.releaseLease(key, lease));
  }

  @Override
  public Optional<LeasedState> acquireLeaseAndLoad(
      PollerKey key, String owner, Duration ttl, Instant now) {
    return time("acquireLeaseAndLoad", () -> delegate.acquireLeaseAndLoad(key, owner, ttl, now));
  }

  @Override
  public boolean saveStateAndRelease(
      PollerKey key, Lease lease, @Nullable ScheduleState expected, StatePatch patch, Instant now) {
    return time(
        "saveStateAndRelease",
        () -> delegate.saveStateAndRelease(key, lease, expected, patch, now));
  }

  @Override
  public Optional<PollerState> loadState(PollerKey key) {
    return time("loadState", () -> delegate.loadState(key));
  }

  @Override
  public void saveState(PollerKey key, Lease lease, StatePatch patch, Instant now) {
    run("saveState", () -> delegate.saveState(key, lease, patch, now));
  }

  @Override
  public Map<String, ItemRow> loadVersions(PollerKey key, Collection<String> identities) {
    return time("loadVersions", () -> delegate.loadVersions(key, identities));
  }

  @Override
  public Stream<List<String>> streamIdentities(PollerKey key, int batchSize) {
    // Each batch is read when the stream asks for it: time the reads, not the stream's consumer.
    Stream<List<String>> stream =
        time("streamIdentities", () -> delegate.streamIdentities(key, batchSize));
    var batches = stream.iterator();
    return Stream.generate(
            () -> time("streamIdentities", () -> batches.hasNext() ? batches.next() : null))
        .takeWhile(b -> b != null)
        .onClose(stream::close);
  }

  @Override
  public void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now) {
    run("commitPoll", () -> delegate.commitPoll(key, lease, batch, now));
  }

  @Override
  public List<OutboxRow> loadPending(PollerKey key, long afterSequence, int limit) {
    return time("loadPending", () -> delegate.loadPending(key, afterSequence, limit));
  }

  @Override
  public long countPending(PollerKey key) {
    return time("countPending", () -> delegate.countPending(key));
  }

  @Override
  public void ackEvents(PollerKey key, Lease lease, Collection<Long> sequences) {
    run("ackEvents", () -> delegate.ackEvents(key, lease, sequences));
  }

  @Override
  public Set<String> heldKeys(PollerKey key) {
    return time("heldKeys", () -> delegate.heldKeys(key));
  }

  @Override
  public Optional<HttpValidator> getValidator(PollerKey key, String urlHash) {
    return time("getValidator", () -> delegate.getValidator(key, urlHash));
  }

  @Override
  public void setValidator(PollerKey key, Lease lease, String urlHash, HttpValidator validator) {
    run("setValidator", () -> delegate.setValidator(key, lease, urlHash, validator));
  }
}
