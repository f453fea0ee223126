package io.watukuy.testing;

import io.watukuy.Cancellable;
import io.watukuy.PollerKey;
import io.watukuy.TimeSource;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.Lease;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.StateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The paused process of the chaos harness ({@link KillPoint#PAUSED}): a process that freezes
 * (SIGSTOP, a suspended VM, a long GC) between loading events of a key and handing them to its
 * handler, after the outbox rows of a drain were loaded or after a page was committed. While it is
 * frozen, the harness moves the clock past the lease TTL and lets another instance take the key and
 * deliver on; then the process resumes where it stopped. A frozen process runs none of its timers,
 * so its lease renewal does not either: the timers that came due are held, and at the resume either
 * run before the process goes on (its timer thread won the race) or dropped (the hand-off came
 * first; the cycle ends before they would matter).
 *
 * <p>One instance stands for one process. Used on the harness's thread only.
 */
final class ChaosPause {
  private final VirtualClock clock;
  private boolean frozen;
  private final List<Runnable> held = new ArrayList<>();
  private @Nullable PollerKey armedKey;
  private int skip;
  private @Nullable Runnable during;
  private boolean timersFirst;
  private boolean fired;

  ChaosPause(VirtualClock clock) {
    this.clock = clock;
  }

  /**
   * Arms a pause at the {@code skip + 1}-th load or commit of events of {@code key}.
   *
   * @param during what happens while the process is frozen: the clock moves, another instance runs
   * @param timersFirst whether the held timers run at the resume before the process goes on
   */
  void arm(PollerKey key, int skip, Runnable during, boolean timersFirst) {
    this.armedKey = key;
    this.skip = skip;
    this.during = during;
    this.timersFirst = timersFirst;
    this.fired = false;
  }

  void disarm() {
    armedKey = null;
    during = null;
  }

  /** Whether the armed pause happened since it was armed. */
  boolean fired() {
    return fired;
  }

  /** The process's clock: the shared virtual clock, whose timers wait while it is frozen. */
  TimeSource time() {
    return new TimeSource() {
      @Override
      public Instant now() {
        return clock.now();
      }

      @Override
      public long nanoTime() {
        return clock.nanoTime();
      }

      @Override
      public void sleep(Duration duration) throws InterruptedException {
        clock.sleep(duration);
      }

      @Override
      public void sleepUntil(long deadlineNanos) throws InterruptedException {
        clock.sleepUntil(deadlineNanos);
      }

      @Override
      public Cancellable schedule(Duration delay, Runnable task) {
        return clock.schedule(
            delay,
            () -> {
              if (frozen) held.add(task);
              else task.run();
            });
      }
    };
  }

  /** The process's store: the pause comes right after a load or a commit of events. */
  StateStore wrap(StateStore store) {
    return new ForwardingStore(store) {
      @Override
      public List<OutboxRow> loadPending(PollerKey key, long afterSequence, int limit) {
        List<OutboxRow> rows = super.loadPending(key, afterSequence, limit);
        if (!rows.isEmpty()) maybePause(key);
        return rows;
      }

      @Override
      public void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now) {
        super.commitPoll(key, lease, batch, now);
        if (!batch.events().isEmpty()) maybePause(key);
      }
    };
  }

  private void maybePause(PollerKey key) {
    Runnable armed = during;
    if (armed == null || !key.equals(armedKey)) return;
    if (skip > 0) {
      skip--;
      return;
    }
    disarm();
    fired = true;
    frozen = true;
    try {
      armed.run();
    } finally {
      frozen = false;
      List<Runnable> due = List.copyOf(held);
      held.clear();
      if (timersFirst) due.forEach(Runnable::run);
    }
  }
}
