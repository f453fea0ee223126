package io.watukuy.testing;

/**
 * Where {@link FaultyStore} simulates a crash (docs/architecture.md, "Kill points";
 * docs/guarantees.md, G9).
 *
 * @since 0.1
 */
public enum KillPoint {
  /** K1: before the lease is acquired. Nothing happened; the next run proceeds. */
  BEFORE_ACQUIRE("before-acquire"),
  /** K2: after a fetch, before commitPoll persists. The page is fetched again. */
  AFTER_FETCH("after-fetch"),
  /** K3: after commitPoll, before dispatch. The outbox is drained by the next run. */
  AFTER_COMMIT("after-commit"),
  /**
   * K4: right after an ack of the key, before its next handler runs: some events acked, the rest
   * not. Unacked events are redelivered; acked ones are not.
   */
  MID_DISPATCH("mid-dispatch"),
  /** K4: the handler ran and its ack failed. The event is redelivered. */
  BEFORE_ACK("before-ack"),
  /** K5/K6: after the acks, before the schedule is saved. The key is due again sooner. */
  AFTER_ACK_BEFORE_SCHEDULE("after-ack-before-schedule"),
  /** K7: during the lease release. The lease lingers until it expires. */
  DURING_RELEASE("during-release"),
  /** Not a crash: the handler throws once for an event (never twice for the same event). */
  HANDLER("handler"),
  /**
   * Not a crash: the process freezes between loading events of the key (a drain's outbox rows, or a
   * page it just committed) and handing them to its handler, past its lease TTL; another instance
   * takes the key and delivers on, then the process resumes. It must hand over nothing it loaded
   * before the freeze (G3, G5).
   */
  PAUSED("paused");

  private final String harnessName;

  KillPoint(String harnessName) {
    this.harnessName = harnessName;
  }

  /**
   * The kill point's name in the chaos harness's messages.
   *
   * @return for example {@code after-commit}
   */
  public String harnessName() {
    return harnessName;
  }

  /**
   * Whether this kill point is a process crash that {@link FaultyStore} can arm.
   *
   * @return {@code true} for every kill point but {@link #HANDLER} and {@link #PAUSED}
   */
  public boolean crash() {
    return this != HANDLER && this != PAUSED;
  }

  @Override
  public String toString() {
    return harnessName;
  }
}
