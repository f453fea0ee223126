package io.watukuy.cli;

import io.watukuy.ChangeEvent;
import io.watukuy.sink.Sink;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A sink that counts the events its destination acknowledged, for the daemon's last line ({@code
 * stopped, N events delivered}); everything else goes to the sink it wraps.
 */
final class CountingSink implements Sink {
  private final Sink sink;
  private final AtomicLong delivered = new AtomicLong();

  CountingSink(Sink sink) {
    this.sink = sink;
  }

  /** The sink counted. */
  Sink sink() {
    return sink;
  }

  /** Events handled without a failure so far. */
  long delivered() {
    return delivered.get();
  }

  @Override
  public String name() {
    return sink.name();
  }

  @Override
  public void open() throws Exception {
    sink.open();
  }

  @Override
  public Health health() {
    return sink.health();
  }

  @Override
  public BatchResult handle(List<ChangeEvent<Object>> events) throws Exception {
    BatchResult r = sink.handle(events);
    delivered.addAndGet(events.size() - r.failures().size());
    return r;
  }

  @Override
  public boolean inSequenceOrder() {
    return sink.inSequenceOrder();
  }

  @Override
  public void close() throws Exception {
    sink.close();
  }
}
