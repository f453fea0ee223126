package io.watukuy.testing;

/**
 * Thrown by a {@link FaultyStore} at its kill point and on every call after it: the calls of a dead
 * process never reach the store.
 *
 * @since 0.1
 */
public final class SimulatedCrash extends RuntimeException {
  /** The kill point that killed the process. */
  private final KillPoint point;

  /**
   * Creates the exception, without a stack trace or suppression.
   *
   * @param point the kill point that fired
   * @param detail the call that crashed or never ran
   */
  public SimulatedCrash(KillPoint point, String detail) {
    super("simulated crash at " + point.harnessName() + ": " + detail, null, false, false);
    this.point = point;
  }

  /**
   * The kill point that killed the process.
   *
   * @return the kill point
   */
  public KillPoint point() {
    return point;
  }
}
