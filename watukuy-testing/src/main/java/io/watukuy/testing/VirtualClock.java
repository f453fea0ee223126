package io.watukuy.testing;

import io.watukuy.Cancellable;
import io.watukuy.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Objects;
import java.util.PriorityQueue;
import org.jspecify.annotations.Nullable;

/**
 * A {@link TimeSource} whose time moves only when a test, or a sleeping thread, moves it: the tool
 * behind guarantee G8 (no real sleep in any test). Time starts at the given instant ({@link
 * #DEFAULT_START} for {@code new VirtualClock()}) and never goes backwards.
 *
 * <h2>Reading time</h2>
 *
 * {@link #now()} is the virtual instant; {@link #nanoTime()} is the virtual time elapsed since the
 * clock was created, in nanoseconds, so {@code now()} always equals the start instant plus {@code
 * nanoTime()} nanoseconds.
 *
 * <h2>Timers</h2>
 *
 * {@link #schedule(Duration, Runnable)} registers a timer due at {@code now + delay} (a zero or
 * negative delay makes it due now). No thread of the clock's own runs timers: they run on the
 * thread that moves time past them, through {@link #advance(Duration)}, {@link
 * #advanceTo(Instant)}, {@link #runDue()} or a time-skipping {@link #sleep(Duration)}. Timers run
 * in order of due time, and timers due at the same instant in the order they were scheduled. Before
 * each timer runs, {@link #now()} is set to its due time, so the task sees the instant it was
 * scheduled for. A task may schedule further timers; those run in the same call if they fall due
 * within its window. A cancelled timer never runs.
 *
 * <h2>Sleeping and time-skipping</h2>
 *
 * With time-skipping on (the default), a thread calling {@link #sleep(Duration)} (or {@link
 * #sleepUntil(long)}) while no other thread is moving time moves the clock itself: it advances to
 * its wake-up instant, running the timers due on the way on its own thread, and returns without any
 * real wait. A budget wait or a backoff inside the engine therefore costs no wall-clock time in a
 * test, and the test sees the clock moved by exactly the slept duration. If another thread is
 * already moving time, the sleeper waits (on the clock's monitor) until that thread either carries
 * the clock past the wake-up instant or stops short, in which case the sleeper moves the rest of
 * the way itself.
 *
 * <p>With time-skipping off ({@link #withoutTimeSkipping()}), a sleeper waits until another
 * thread's {@link #advance(Duration)} carries the clock to or past its wake-up instant; use this to
 * hold an engine thread in a wait and inspect the state while it waits. {@link #awaitSleepers(int,
 * Duration)} lets a test find out, without sleeping, when a thread has entered such a wait.
 *
 * <p>Either way {@link #pendingTimers()} counts the sleeping threads alongside the scheduled
 * timers, so a test can assert after {@code stop()} that nothing is left waiting on the clock.
 *
 * <h2>Threads</h2>
 *
 * All methods are safe from any thread. One thread at a time moves time; a second thread calling
 * {@code advance} waits for the first to finish and then advances from wherever the clock stands.
 * Timer tasks run without any lock held, but a task should not block on another thread that is
 * itself trying to move this clock: that thread waits for the task's thread to finish moving time,
 * and both wait forever. If a task throws, the exception propagates out of the call that ran it;
 * the clock stays at that task's due time and later timers stay scheduled.
 *
 * @since 0.1
 */
public final class VirtualClock implements TimeSource {

  /** Where {@code new VirtualClock()} starts: 2024-01-01T00:00:00Z. */
  public static final Instant DEFAULT_START = Instant.parse("2024-01-01T00:00:00Z");

  private final Instant start;
  private final Object lock = new Object();

  // Guarded by lock. Virtual nanoseconds since start; only ever increases.
  private long elapsedNanos;
  // Guarded by lock. Scheduled timers not yet run nor cancelled, earliest (then oldest) first.
  private final PriorityQueue<Timer> timers =
      new PriorityQueue<>(
          Comparator.comparingLong((Timer t) -> t.dueNanos).thenComparingLong(t -> t.sequence));
  // Guarded by lock.
  private long nextSequence;
  // Guarded by lock. Threads inside sleep() that have not yet woken.
  private int sleepers;
  // Guarded by lock. The thread moving time, if any; advanceDepth counts its nested advances.
  private @Nullable Thread advancer;
  private int advanceDepth;
  // Guarded by lock.
  private boolean timeSkipping = true;

  /** A clock at {@link #DEFAULT_START}, with time-skipping on. */
  public VirtualClock() {
    this(DEFAULT_START);
  }

  private VirtualClock(Instant start) {
    this.start = Objects.requireNonNull(start, "start");
  }

  /**
   * A clock at {@code start}, with time-skipping on.
   *
   * @param start the instant {@link #now()} returns until time moves
   * @return a new clock
   * @throws NullPointerException if {@code start} is null
   */
  public static VirtualClock at(Instant start) {
    return new VirtualClock(start);
  }

  /**
   * A clock at an ISO-8601 instant such as {@code "2024-01-01T00:00:00Z"}, with time-skipping on.
   *
   * @param iso the start instant, parsed by {@link Instant#parse}
   * @return a new clock
   * @throws java.time.format.DateTimeParseException if {@code iso} is not an ISO-8601 instant
   */
  public static VirtualClock at(String iso) {
    return new VirtualClock(Instant.parse(Objects.requireNonNull(iso, "iso")));
  }

  /**
   * Turns time-skipping off and returns this clock, for use where the clock is created: {@code
   * VirtualClock.at("2024-01-01T00:00:00Z").withoutTimeSkipping()}.
   *
   * @return this clock
   */
  public VirtualClock withoutTimeSkipping() {
    setTimeSkipping(false);
    return this;
  }

  /**
   * Turns time-skipping on or off (see the class description). Threads already sleeping re-evaluate
   * at once: turning it on lets a waiting sleeper move the clock itself.
   *
   * @param enabled {@code true} to let a lone sleeper move the clock
   */
  public void setTimeSkipping(boolean enabled) {
    synchronized (lock) {
      timeSkipping = enabled;
      lock.notifyAll();
    }
  }

  /**
   * Whether a lone sleeping thread moves the clock itself.
   *
   * @return {@code true} unless turned off
   */
  public boolean timeSkipping() {
    synchronized (lock) {
      return timeSkipping;
    }
  }

  @Override
  public Instant now() {
    synchronized (lock) {
      return start.plusNanos(elapsedNanos);
    }
  }

  /** Virtual nanoseconds elapsed since this clock was created; starts at 0. */
  @Override
  public long nanoTime() {
    synchronized (lock) {
      return elapsedNanos;
    }
  }

  /**
   * Registers {@code task} to run once when the clock reaches {@code now + delay}, on whichever
   * thread moves time past that instant. Never runs the task on the calling thread during this
   * call, even for a zero delay.
   *
   * @return a handle whose {@code cancel()} removes the timer if it has not started
   */
  @Override
  public Cancellable schedule(Duration delay, Runnable task) {
    Objects.requireNonNull(delay, "delay");
    Objects.requireNonNull(task, "task");
    synchronized (lock) {
      long due =
          delay.isNegative() ? elapsedNanos : saturatedAdd(elapsedNanos, saturatedNanos(delay));
      Timer timer = new Timer(due, nextSequence++, task);
      timers.add(timer);
      return timer;
    }
  }

  /**
   * Waits until the clock has moved {@code duration} past the current instant; see the class
   * description for how time-skipping decides who moves it. Returns at once for a zero or negative
   * duration. With time-skipping on and no other thread moving time, this thread runs the timers
   * due before its wake-up instant and returns with {@link #now()} advanced by exactly {@code
   * duration}.
   *
   * @throws InterruptedException if the thread is interrupted before or while waiting; the
   *     interrupt flag is cleared, as with {@link Thread#sleep(long)}
   */
  @Override
  public void sleep(Duration duration) throws InterruptedException {
    Objects.requireNonNull(duration, "duration");
    if (duration.isZero() || duration.isNegative()) {
      return;
    }
    long wake;
    synchronized (lock) {
      wake = saturatedAdd(elapsedNanos, saturatedNanos(duration));
    }
    sleepUntil(wake);
  }

  /**
   * Waits until {@link #nanoTime()} reaches {@code deadlineNanos}, as {@link #sleep(Duration)} does
   * for a duration; returns at once when the clock is already there. The deadline is fixed before
   * the wait, so a thread moving the clock meanwhile can only bring the wake-up closer.
   *
   * @throws InterruptedException if the thread is interrupted when it has to wait or while it
   *     waits; the interrupt flag is then cleared. A deadline already reached returns without
   *     looking at the flag, as {@link #sleep(Duration)} does for a zero duration
   */
  @Override
  public void sleepUntil(long deadlineNanos) throws InterruptedException {
    Thread me = Thread.currentThread();
    long wake = deadlineNanos;
    synchronized (lock) {
      if (elapsedNanos >= wake) {
        return;
      }
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      sleepers++;
      lock.notifyAll(); // wakes awaitSleepers
    }
    try {
      while (true) {
        synchronized (lock) {
          while (elapsedNanos < wake && !(timeSkipping && mayAdvance(me))) {
            lock.wait();
          }
          if (elapsedNanos >= wake) {
            return;
          }
          beginAdvance(me);
        }
        runUntil(wake);
      }
    } finally {
      synchronized (lock) {
        sleepers--;
        lock.notifyAll();
      }
    }
  }

  /**
   * Moves time forward by {@code duration}: runs each timer due within the window on this thread,
   * in due order, with {@link #now()} set to its due time, then sets {@link #now()} to the end of
   * the window. If another thread is moving time, waits for it first and then advances from where
   * it left the clock. A zero duration runs the timers due now.
   *
   * @param duration how far to move; zero or more
   * @throws IllegalArgumentException if {@code duration} is negative or moves the clock beyond
   *     about 292 years from its start
   */
  public void advance(Duration duration) {
    Objects.requireNonNull(duration, "duration");
    if (duration.isNegative()) {
      throw new IllegalArgumentException(
          "duration must not be negative (time never goes backwards), but was " + duration);
    }
    long nanos = exactNanos(duration);
    long target;
    Thread me = Thread.currentThread();
    synchronized (lock) {
      awaitAdvanceTurn(me);
      try {
        target = Math.addExact(elapsedNanos, nanos);
      } catch (ArithmeticException e) {
        throw new IllegalArgumentException(
            "advancing by " + duration + " from " + now() + " exceeds the clock's range", e);
      }
      beginAdvance(me);
    }
    runUntil(target);
  }

  /**
   * Moves time forward to {@code instant}, running the timers due on the way as {@link
   * #advance(Duration)} does. An instant equal to {@link #now()} runs the timers due now.
   *
   * @param instant where to move the clock; not before {@link #now()}
   * @throws IllegalArgumentException if {@code instant} is before {@link #now()}
   */
  public void advanceTo(Instant instant) {
    Objects.requireNonNull(instant, "instant");
    Thread me = Thread.currentThread();
    long target;
    synchronized (lock) {
      awaitAdvanceTurn(me);
      Instant now = start.plusNanos(elapsedNanos);
      if (instant.isBefore(now)) {
        throw new IllegalArgumentException(
            "cannot move the clock back from " + now + " to " + instant);
      }
      target = exactNanos(Duration.between(start, instant));
      beginAdvance(me);
    }
    runUntil(target);
  }

  /** Runs the timers due at or before {@link #now()}, without moving time. */
  public void runDue() {
    advance(Duration.ZERO);
  }

  /**
   * The number of scheduled timers that have neither run nor been cancelled, plus the number of
   * threads currently inside {@link #sleep(Duration)} or {@link #sleepUntil(long)}. Zero means
   * nothing is waiting on this clock.
   *
   * @return scheduled timers plus sleeping threads
   */
  public int pendingTimers() {
    synchronized (lock) {
      return timers.size() + sleepers;
    }
  }

  /**
   * Waits, in real time, until at least {@code count} threads are inside {@link #sleep(Duration)}
   * or {@link #sleepUntil(long)}: lets a test hand work to another thread and act once that thread
   * is parked on the clock, without a real sleep. Uses the clock's monitor, not polling.
   *
   * @param count how many sleeping threads to wait for
   * @param timeout the longest real time to wait
   * @return whether {@code count} sleepers were seen before the timeout
   * @throws InterruptedException if the calling thread is interrupted while waiting
   */
  public boolean awaitSleepers(int count, Duration timeout) throws InterruptedException {
    Objects.requireNonNull(timeout, "timeout");
    long deadline = System.nanoTime() + saturatedNanos(timeout);
    synchronized (lock) {
      while (sleepers < count) {
        long remainingNanos = deadline - System.nanoTime();
        if (remainingNanos <= 0) {
          return false;
        }
        // Object.wait takes milliseconds; round up so a short remainder still waits.
        lock.wait(Math.max(1, (remainingNanos + 999_999) / 1_000_000));
      }
      return true;
    }
  }

  @Override
  public String toString() {
    synchronized (lock) {
      return "VirtualClock[now="
          + start.plusNanos(elapsedNanos)
          + ", timers="
          + timers.size()
          + ", sleepers="
          + sleepers
          + "]";
    }
  }

  // Runs timers up to target on the calling thread, which must have called beginAdvance.
  private void runUntil(long target) {
    try {
      while (true) {
        Timer next;
        synchronized (lock) {
          next = timers.peek();
          if (next == null || next.dueNanos > target) {
            elapsedNanos = Math.max(elapsedNanos, target);
            lock.notifyAll();
            return;
          }
          timers.poll();
          elapsedNanos = Math.max(elapsedNanos, next.dueNanos);
          lock.notifyAll();
        }
        // Outside the lock: the task may read the clock, schedule, or hand off to other threads.
        next.task.run();
      }
    } finally {
      synchronized (lock) {
        if (--advanceDepth == 0) {
          advancer = null;
        }
        lock.notifyAll();
      }
    }
  }

  // Caller holds lock.
  private boolean mayAdvance(Thread thread) {
    return advancer == null || advancer == thread;
  }

  // Caller holds lock. A timer task that advances the clock from the advancing thread nests.
  private void beginAdvance(Thread thread) {
    advancer = thread;
    advanceDepth++;
  }

  // Caller holds lock. advance() declares no InterruptedException, so an interrupt is kept for
  // the caller to see rather than abandoning the advance.
  private void awaitAdvanceTurn(Thread me) {
    boolean interrupted = false;
    while (!mayAdvance(me)) {
      try {
        lock.wait();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      me.interrupt();
    }
  }

  private static long exactNanos(Duration duration) {
    try {
      return duration.toNanos();
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          duration + " exceeds the clock's range of about 292 years", e);
    }
  }

  // Timer delays and sleeps beyond the range never fall due in practice, so they saturate.
  private static long saturatedNanos(Duration duration) {
    try {
      return duration.toNanos();
    } catch (ArithmeticException e) {
      return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    // Overflow only when both operands share a sign that the sum does not.
    if (((a ^ sum) & (b ^ sum)) < 0) {
      return b > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
    }
    return sum;
  }

  private final class Timer implements Cancellable {
    final long dueNanos;
    final long sequence;
    final Runnable task;

    Timer(long dueNanos, long sequence, Runnable task) {
      this.dueNanos = dueNanos;
      this.sequence = sequence;
      this.task = task;
    }

    @Override
    public void cancel() {
      synchronized (lock) {
        timers.remove(this);
      }
    }
  }
}
