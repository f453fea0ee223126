package io.watukuy.internal;

import org.jspecify.annotations.Nullable;

/**
 * The hand-off in progress on this thread, for {@link io.watukuy.Handler#checkLease()}: the
 * dispatcher sets it around each handler call, so a handler can ask again, right before its own
 * write, whether the lease still holds (docs/guarantees.md, G5). Public only for {@code Handler}.
 */
public final class HandOffs {
  private static final ThreadLocal<@Nullable HandOff> CURRENT = new ThreadLocal<>();

  private HandOffs() {}

  /** One handler call: its key's delivery, and whether the lease refused it. */
  static final class HandOff {
    final Delivery delivery;
    boolean refused;

    HandOff(Delivery delivery) {
      this.delivery = delivery;
    }

    /** {@link LeaseKeeper#checkHandOff()}, remembering a refusal as this call's. */
    void check() {
      try {
        delivery.lease.checkHandOff();
      } catch (io.watukuy.LeaseLostException stale) {
        refused = true;
        if (delivery.stale == null) delivery.stale = stale;
        throw stale;
      }
    }
  }

  static void set(@Nullable HandOff h) {
    if (h == null) CURRENT.remove();
    else CURRENT.set(h);
  }

  /**
   * The key and lease of the hand-off running on this thread, for {@code Sink.handOff()}.
   *
   * @return the key and the lease the engine handed the batch over under, or null outside a handler
   *     call
   */
  public static io.watukuy.sink.@Nullable HandOff current() {
    HandOff h = CURRENT.get();
    return h == null ? null : new io.watukuy.sink.HandOff(h.delivery.key, h.delivery.lease.lease());
  }

  /**
   * Checks the lease of the hand-off running on this thread; does nothing outside a handler call.
   *
   * @throws io.watukuy.LeaseLostException when the lease may no longer be this instance's
   */
  public static void check() {
    HandOff h = CURRENT.get();
    if (h != null) h.check();
  }
}
