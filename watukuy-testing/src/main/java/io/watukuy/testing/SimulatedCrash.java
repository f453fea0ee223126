package io.watukuy.testing;

/**
 * Thrown by a {@link FaultyStore} at its kill point and on every call after it: the calls of a
 * dead process never reach the store.
 *
 * @since 0.1
 */
public final class SimulatedCrash extends RuntimeException {
  private final KillPoint point;

  public SimulatedCrash(KillPoint point, String detail) {
    super("simulated crash at " + point.harnessName() + ": " + detail, null, false, false);
    this.point = point;
  }

  /** The kill point that killed the process. */
  public KillPoint point() {
    return point;
  }
}
