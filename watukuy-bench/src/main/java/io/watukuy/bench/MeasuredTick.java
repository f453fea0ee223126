package io.watukuy.bench;

import io.watukuy.KeyReport;
import io.watukuy.TickReport;
import io.watukuy.Watukuy;
import io.watukuy.bench.EndToEnd.Phase;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One tick of a single-key engine, timed and checked: its wall time, the process's CPU, the time
 * inside each store call and the heap, and a check that it did exactly the work the phase must, so
 * that a number is never reported for a run that did the wrong thing. The snapshot and timestamp
 * phases measure each phase with it.
 */
final class MeasuredTick {
  private MeasuredTick() {}

  /**
   * Runs one tick of the engine's single key and checks it: one key polled over {@code pages}
   * pages, {@code items} items fetched, exactly {@code expected} events committed and delivered.
   *
   * @return the phase, with no baseline yet
   * @throws IllegalStateException if the tick did anything else
   */
  static Phase run(
      String name,
      String strategy,
      Watukuy engine,
      TimedStore store,
      HeapWatch heap,
      EventCounter counter,
      AtomicLong fetched,
      int items,
      EventCounter.Counts expected,
      int pages)
      throws InterruptedException {
    Thread.sleep(5); // past schedule.min, so the key is due
    heap.reset();
    store.drain();
    EventCounter.Counts before = counter.now();
    long fetchedBefore = fetched.get();
    long cpu = ProcessCpu.nanos();
    long start = System.nanoTime();
    TickReport report = engine.tick();
    double seconds = (System.nanoTime() - start) / 1e9;
    double cpuSeconds = (ProcessCpu.nanos() - cpu) / 1e9;
    Map<String, TimedStore.Usage> calls = store.drain();
    long peakHeap = heap.peak();
    long retained = heap.retained();
    check(
        name,
        report,
        counter.now().minus(before),
        fetched.get() - fetchedBefore,
        items,
        expected,
        pages);
    return new Phase(
        name,
        strategy,
        items,
        expected.total(),
        1,
        seconds,
        peakHeap,
        retained,
        calls,
        "",
        Double.NaN,
        Double.NaN,
        cpuSeconds);
  }

  /**
   * Checks one tick of a single-key engine.
   *
   * @throws IllegalStateException if the tick did not poll one key over {@code pages} pages,
   *     fetching {@code items} items, committing and delivering exactly {@code expected}
   */
  static void check(
      String name,
      TickReport report,
      EventCounter.Counts seen,
      long fetched,
      int items,
      EventCounter.Counts expected,
      int pages) {
    KeyReport key = report.keys().size() == 1 ? report.keys().get(0) : null;
    if (key == null
        || key.failed()
        || key.truncated()
        || report.eventsCommitted() != expected.total()
        || report.delivered() != expected.total()
        || !seen.equals(expected)
        || key.pages() != pages
        || fetched != items) {
      throw new IllegalStateException(
          name
              + ": expected one key, "
              + items
              + " items over "
              + pages
              + " pages, "
              + expected
              + " committed and delivered, but the tick reported "
              + report
              + ", fetched "
              + fetched
              + " items, and the handler saw "
              + seen);
    }
  }
}
