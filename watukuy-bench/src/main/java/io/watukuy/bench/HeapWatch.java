package io.watukuy.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The heap of one phase: the highest heap in use while it ran (sampled every 10 ms, garbage
 * included, so it says how close the phase came to {@code -Xmx}) and the heap still in use after a
 * full collection at its end, which is what the engine and the store retain (G10 is about that one
 * staying flat as the listing grows).
 */
final class HeapWatch implements AutoCloseable {
  private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
  private final AtomicLong peak = new AtomicLong();
  private final Thread sampler;
  private volatile boolean running = true;

  HeapWatch() {
    sampler =
        new Thread(
            () -> {
              while (running) {
                sample();
                try {
                  Thread.sleep(10);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "heap-watch");
    sampler.setDaemon(true);
    sampler.start();
  }

  /** Collects garbage, then starts a new phase: the peak restarts from the heap in use now. */
  void reset() {
    System.gc();
    peak.set(memory.getHeapMemoryUsage().getUsed());
  }

  /** The highest sampled heap use since {@link #reset()}, in bytes. */
  long peak() {
    sample();
    return peak.get();
  }

  /** The heap in use after a full collection now, in bytes. */
  long retained() {
    System.gc();
    return memory.getHeapMemoryUsage().getUsed();
  }

  private void sample() {
    peak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
  }

  @Override
  public void close() {
    running = false;
    sampler.interrupt();
  }
}
