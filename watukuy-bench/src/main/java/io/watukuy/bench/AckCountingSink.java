package io.watukuy.bench;

import io.watukuy.ChangeEvent;
import io.watukuy.sink.ForwardingSink;
import io.watukuy.sink.Sink;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * A sink as the engine sees it, counting the events it reported acknowledged, so that the sink
 * bench reports a rate only for a pass whose every event reached the destination; everything else
 * goes to the sink unchanged.
 */
final class AckCountingSink extends ForwardingSink {
  private final AtomicLong acked = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicReference<@Nullable Throwable> firstFailure = new AtomicReference<>();

  AckCountingSink(Sink sink) {
    super(sink);
  }

  @Override
  public BatchResult handle(List<ChangeEvent<Object>> events) throws Exception {
    BatchResult result;
    try {
      result = super.handle(events);
    } catch (Exception e) {
      firstFailure.compareAndSet(null, e);
      failed.addAndGet(events.size());
      throw e;
    }
    if (!result.failures().isEmpty())
      firstFailure.compareAndSet(null, result.failures().get(0).cause());
    failed.addAndGet(result.failures().size());
    acked.addAndGet(events.size() - result.failures().size());
    return result;
  }

  /** Events the sink reported acknowledged so far. */
  long acked() {
    return acked.get();
  }

  /** Event deliveries the sink failed so far (a thrown batch counts each of its events). */
  long failed() {
    return failed.get();
  }

  /** The first failure the sink reported, or null. */
  @Nullable Throwable firstFailure() {
    return firstFailure.get();
  }
}
