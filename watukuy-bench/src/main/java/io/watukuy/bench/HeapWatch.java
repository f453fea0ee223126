package io.watukuy.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The heap peaks of one phase: the highest heap in use (sampled every 10 ms, garbage included,
 * so bounded by {@code -Xmx} rather than by what is retained) and the highest heap still in use
 * right after a garbage collection, which is what the phase retains and what G10 is about.
 */
final class HeapWatch implements AutoCloseable {
  private final AtomicLong peakUsed = new AtomicLong();
  private final AtomicLong peakLive = new AtomicLong();
  private final Thread sampler;
  private final List<Runnable> detach = new ArrayList<>();
  private volatile boolean running = true;
  private final Set<String> heapPools = new HashSet<>();

  HeapWatch() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans())
      if (pool.getType() == MemoryType.HEAP) heapPools.add(pool.getName());
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (!(gc instanceof NotificationEmitter emitter)) continue;
      NotificationListener listener = this::onGc;
      emitter.addNotificationListener(listener, null, null);
      detach.add(() -> {
        try {
          emitter.removeNotificationListener(listener);
        } catch (javax.management.ListenerNotFoundException ignored) {
          // already gone
        }
      });
    }
    sampler = new Thread(() -> {
      while (running) {
        peakUsed.accumulateAndGet(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), Math::max);
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "heap-watch");
    sampler.setDaemon(true);
    sampler.start();
  }

  /** Collects garbage, then starts a new phase: both peaks restart from the heap in use now. */
  void reset() {
    System.gc();
    long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    peakUsed.set(used);
    peakLive.set(used);
  }

  /** The highest sampled heap use since {@link #reset()}, in bytes. */
  long peakUsed() {
    peakUsed.accumulateAndGet(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), Math::max);
    return peakUsed.get();
  }

  /** The highest heap use right after a collection since {@link #reset()}, in bytes. */
  long peakLive() {
    return peakLive.get();
  }

  private void onGc(Notification notification, Object handback) {
    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) return;
    GarbageCollectionNotificationInfo info =
        GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
    // The after-GC map covers every pool; only the heap's count.
    long after = 0;
    for (var e : info.getGcInfo().getMemoryUsageAfterGc().entrySet())
      if (heapPools.contains(e.getKey())) after += e.getValue().getUsed();
    peakLive.accumulateAndGet(after, Math::max);
  }

  @Override
  public void close() {
    running = false;
    sampler.interrupt();
    detach.forEach(Runnable::run);
  }
}
