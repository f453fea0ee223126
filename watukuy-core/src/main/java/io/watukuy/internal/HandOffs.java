package io.watukuy.internal;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hand-off in progress on this thread, for {@link io.watukuy.Handler#checkLease()}: the
 * dispatcher sets it around each handler call, so a handler can ask again, right before its own
 * write, whether the lease still holds (docs/guarantees.md, G5). Public only for {@code Handler}.
 */
public final class HandOffs {
  private static final Logger log = LoggerFactory.getLogger(HandOffs.class);

  /** An HTTP token (RFC 9110), which is also a valid Kafka, AMQP and NATS header name. */
  private static final Pattern NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9a-z-]+");

  /** Visible US-ASCII and spaces: no CR or LF that could start a header of its own. */
  private static final Pattern VALUE = Pattern.compile("[\\x20-\\x7e]*");

  private static final ThreadLocal<@Nullable HandOff> CURRENT = new ThreadLocal<>();

  private HandOffs() {}

  /** One handler call: its key's delivery, and whether the lease refused it. */
  static final class HandOff {
    final Delivery delivery;
    boolean refused;

    /** What the listeners asked the call's messages to carry ({@code Sink.headers()}). */
    Map<String, String> headers = Map.of();

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

  /**
   * The headers the listeners gave for the handler call running on this thread, for {@code
   * Sink.headers()}.
   *
   * @return the headers, empty outside a handler call or when no listener gave any
   */
  public static Map<String, String> headers() {
    HandOff h = CURRENT.get();
    return h == null ? Map.of() : h.headers;
  }

  /**
   * The listeners' headers as a sink may write them: names in lower case, and a header whose name
   * is not a token or whose value holds a control character dropped with a warning (a CR or LF
   * would let a listener write a header of its own into an HTTP request).
   */
  static Map<String, String> checked(Map<String, String> given) {
    if (given.isEmpty()) return Map.of();
    Map<String, String> ok = new LinkedHashMap<>();
    given.forEach(
        (name, value) -> {
          if (name == null || value == null) return;
          String lower = name.toLowerCase(Locale.ROOT);
          if (NAME.matcher(lower).matches() && VALUE.matcher(value).matches())
            ok.putIfAbsent(lower, value);
          else
            log.warn("listener header {} dropped: not a token name with a printable value", lower);
        });
    return java.util.Collections.unmodifiableMap(ok);
  }
}
