package io.watukuy.testing;

import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

/**
 * A reproducible {@link RandomGenerator} for tests (guarantee G8): the same seed yields the same
 * sequence on every JVM, platform and JDK version, so every jitter, backoff and chaos step of a
 * failing run can be replayed from its seed.
 *
 * <p>The generator is SplitMix64 (Steele, Lea and Flood, "Fast Splittable Pseudorandom Number
 * Generators", OOPSLA 2014): the state advances by the golden gamma {@code 0x9e3779b97f4a7c15} and
 * each output is the state passed through the Stafford "variant 13" mixer. It is written out here
 * rather than delegated to {@link java.util.SplittableRandom} so that its output cannot change with
 * a JDK release. For the same seed it matches {@code new SplittableRandom(seed)} today. The derived
 * methods ({@link #nextInt()}, {@link #nextDouble()}, the bounded variants, {@link #nextBoolean()},
 * {@link #nextFloat()}) are implemented here for the same reason; only the methods this class does
 * not override ({@code nextGaussian}, {@code nextExponential}, the stream methods) follow the JDK's
 * defaults on top of {@link #nextLong()}.
 *
 * <p>Safe to share between threads: each call atomically takes the next value. The sequence as a
 * whole is then deterministic only if the order of calls is.
 *
 * @since 0.1
 */
public final class SeededRandom implements RandomGenerator {

  private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;
  private static final double DOUBLE_UNIT = 0x1.0p-53;
  private static final float FLOAT_UNIT = 0x1.0p-24f;

  private final long seed;
  private final AtomicLong state;

  private SeededRandom(long seed) {
    this.seed = seed;
    this.state = new AtomicLong(seed);
  }

  /**
   * A generator whose sequence is fully determined by {@code seed}.
   *
   * @param seed any value; log it so that a failing run can be replayed
   * @return a new generator
   */
  public static SeededRandom of(long seed) {
    return new SeededRandom(seed);
  }

  /**
   * The seed this generator was created with; unaffected by the values drawn since.
   *
   * @return the seed given to {@link #of(long)} (or drawn by {@link #split()})
   */
  public long seed() {
    return seed;
  }

  /**
   * A new, independent generator seeded from this one's next value. Splitting consumes one value of
   * this generator, so a split at the same point of the same sequence always yields the same child.
   *
   * @return the child generator
   */
  public SeededRandom split() {
    return new SeededRandom(nextLong());
  }

  @Override
  public long nextLong() {
    return mix64(state.addAndGet(GOLDEN_GAMMA));
  }

  /** The upper 32 bits of {@link #nextLong()}. */
  @Override
  public int nextInt() {
    return (int) (nextLong() >>> 32);
  }

  /** The sign bit of {@link #nextLong()}. */
  @Override
  public boolean nextBoolean() {
    return nextLong() < 0;
  }

  /** Uniform in {@code [0, 1)}: the upper 53 bits of {@link #nextLong()} scaled by 2^-53. */
  @Override
  public double nextDouble() {
    return (nextLong() >>> 11) * DOUBLE_UNIT;
  }

  /** Uniform in {@code [0, 1)}: the upper 24 bits of {@link #nextLong()} scaled by 2^-24. */
  @Override
  public float nextFloat() {
    return (nextLong() >>> 40) * FLOAT_UNIT;
  }

  /**
   * Uniform in {@code [0, bound)}, without modulo bias.
   *
   * @throws IllegalArgumentException if {@code bound} is not positive
   */
  @Override
  public long nextLong(long bound) {
    if (bound <= 0) {
      throw new IllegalArgumentException("bound must be positive, but was " + bound);
    }
    long mask = bound - 1;
    long r = nextLong();
    if ((bound & mask) == 0) {
      return r & mask;
    }
    // Rejection sampling: redraw while r falls in the incomplete last block of size `bound`.
    for (long u = r >>> 1; u + mask - (r = u % bound) < 0; u = nextLong() >>> 1) {
      // redraw
    }
    return r;
  }

  /**
   * Uniform in {@code [origin, bound)}.
   *
   * @throws IllegalArgumentException if {@code origin >= bound}
   */
  @Override
  public long nextLong(long origin, long bound) {
    if (origin >= bound) {
      throw new IllegalArgumentException(
          "origin must be below bound, but was origin=" + origin + ", bound=" + bound);
    }
    long range = bound - origin;
    if (range > 0) {
      return origin + nextLong(range);
    }
    // The range does not fit in a positive long: draw until a value lands inside it.
    long r;
    do {
      r = nextLong();
    } while (r < origin || r >= bound);
    return r;
  }

  /**
   * Uniform in {@code [0, bound)}; the same draw as {@link #nextLong(long)}.
   *
   * @throws IllegalArgumentException if {@code bound} is not positive
   */
  @Override
  public int nextInt(int bound) {
    return (int) nextLong(bound);
  }

  /**
   * Uniform in {@code [origin, bound)}; the same draw as {@link #nextLong(long, long)}.
   *
   * @throws IllegalArgumentException if {@code origin >= bound}
   */
  @Override
  public int nextInt(int origin, int bound) {
    return (int) nextLong(origin, bound);
  }

  /**
   * Uniform in {@code [0, bound)}.
   *
   * @throws IllegalArgumentException if {@code bound} is not positive and finite
   */
  @Override
  public double nextDouble(double bound) {
    if (!(bound > 0 && bound < Double.POSITIVE_INFINITY)) {
      throw new IllegalArgumentException("bound must be positive and finite, but was " + bound);
    }
    double r = nextDouble() * bound;
    // Rounding can reach the bound itself; the interval is half-open.
    return r < bound ? r : Math.nextDown(bound);
  }

  /**
   * Uniform in {@code [origin, bound)}.
   *
   * @throws IllegalArgumentException if {@code origin >= bound} or the range is not finite
   */
  @Override
  public double nextDouble(double origin, double bound) {
    if (!(origin < bound && bound - origin < Double.POSITIVE_INFINITY)) {
      throw new IllegalArgumentException(
          "origin must be below bound and the range finite, but was origin="
              + origin
              + ", bound="
              + bound);
    }
    double r = origin + nextDouble() * (bound - origin);
    return r < bound ? r : Math.nextDown(bound);
  }

  @Override
  public String toString() {
    return "SeededRandom[seed=" + seed + "]";
  }

  // Stafford's "variant 13" 64-bit finalizer, as in SplitMix64.
  private static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
