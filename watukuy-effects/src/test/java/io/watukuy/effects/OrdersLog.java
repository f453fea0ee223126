package io.watukuy.effects;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cursors;
import io.watukuy.EventLog;
import io.watukuy.EventType;
import io.watukuy.Lane;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.SealingKeys;
import io.watukuy.internal.Envelope;
import io.watukuy.internal.Json;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.StatePatch;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.VirtualClock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import org.jspecify.annotations.Nullable;

/**
 * A memory store on a virtual clock, an {@code orders} poller with its log on and events appended
 * by hand, and one effect whose invocations run on the calling thread, driven pass by pass.
 */
final class OrdersLog {
  record Order(String id, String customer) {}

  static final PollerKey ORDERS = PollerKey.of("orders");
  static final String EFFECT = "Notify";

  /** A fixed secretKey (32 bytes), sealing with a seeded random. */
  static final SealingKeys SECRET_KEY =
      SealingKeys.builder()
          .key("secretKey", "k1", Base64.getEncoder().encodeToString(new byte[32]))
          .random(new Random(1))
          .build();

  final VirtualClock clock = new VirtualClock();
  final MemoryStore store = new MemoryStore();
  final Poller<Order> orders =
      Poller.builder("orders", Order.class)
          .identity(Order::id)
          .cursor(Cursors.token())
          .fetch(ctx -> Page.empty())
          .log(EventLog.keep(Duration.ofDays(7)))
          .build();
  private long sequence;
  private @Nullable Lease pollerLease;

  /** Appends a created order for {@code customer}; returns its position. */
  long created(String customer) {
    long seq = ++sequence;
    String id = "o" + seq;
    JsonNode data = Json.MAPPER.valueToTree(new Order(id, customer));
    String json =
        Envelope.of(
                "id-" + seq,
                EventType.CREATED,
                "orders",
                "",
                id,
                id,
                "v" + seq,
                null,
                1,
                Lane.LIVE,
                seq,
                clock.now(),
                data,
                null)
            .toString();
    if (pollerLease == null)
      pollerLease =
          store.acquireLease(ORDERS, "poller", Duration.ofDays(365), clock.now()).orElseThrow();
    store.commitPoll(
        ORDERS,
        pollerLease,
        new CommitBatch(
            new StatePatch(null, null, null, seq),
            List.of(),
            List.of(),
            List.of(OutboxRow.pending(seq, "id-" + seq, id, json, clock.now())),
            true,
            List.of()),
        clock.now());
    return seq;
  }

  /** An engine running {@link #EFFECT} with {@code arm} on created orders, keyed by customer. */
  Effects effects(Arm<Order> arm, @Nullable SealingKeys secretKey) {
    Effect<Order> effect =
        Effect.builder(EFFECT)
            .source(orders)
            .on(EventType.CREATED, arm, Key.of("customer", e -> e.data().customer()))
            .build();
    Effects.Builder b =
        Effects.builder(store)
            .time(clock)
            .workers(Runnable::run)
            .instanceId("engine-1")
            .random(new Random(42))
            .add(effect);
    if (secretKey != null) b.secretKey(secretKey);
    return b.build();
  }

  /** Passes until nothing changes. */
  static void drain(Effects effects) {
    effects.run(EFFECT).drain();
  }

  InvocationRow row(long position) {
    return store.loadInvocation(EFFECT, ORDERS, position).orElseThrow();
  }
}
