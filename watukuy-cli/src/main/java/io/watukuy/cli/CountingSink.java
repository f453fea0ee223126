package io.watukuy.cli;

import io.watukuy.ChangeEvent;
import io.watukuy.sink.ForwardingSink;
import io.watukuy.sink.Sink;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A sink that counts the events its destination acknowledged, for the daemon's last line ({@code
 * stopped, N events delivered}); everything else goes to the sink it wraps.
 */
final class CountingSink extends ForwardingSink {
  private final AtomicLong delivered = new AtomicLong();

  CountingSink(Sink sink) {
    super(sink);
  }

  /** The sink counted. */
  Sink sink() {
    return delegate();
  }

  /** Events handled without a failure so far. */
  long delivered() {
    return delivered.get();
  }

  @Override
  public BatchResult handle(List<ChangeEvent<Object>> events) throws Exception {
    BatchResult r = super.handle(events);
    delivered.addAndGet(events.size() - r.failures().size());
    return r;
  }
}
