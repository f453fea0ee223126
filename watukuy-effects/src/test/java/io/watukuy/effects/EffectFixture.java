package io.watukuy.effects;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.Cursors;
import io.watukuy.EventLog;
import io.watukuy.EventType;
import io.watukuy.Lane;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.SealingKeys;
import io.watukuy.effects.internal.EffectRun;
import io.watukuy.internal.Envelope;
import io.watukuy.internal.Json;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.StateStore;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.VirtualClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * A store (memory unless given), a virtual clock and a poller with its log on, events appended to
 * the log by hand, and effects whose invocations run on the calling thread, driven pass by pass.
 */
final class EffectFixture<S extends StateStore> {
  record Order(String id, String customer) {}

  static final PollerKey ORDERS = PollerKey.of("orders");

  final VirtualClock clock = new VirtualClock();
  final S store;
  final EffectStore effects;
  final Poller<Order> orders =
      Poller.builder("orders", Order.class)
          .identity(Order::id)
          .cursor(Cursors.token())
          .fetch(ctx -> Page.empty())
          .log(EventLog.keep(Duration.ofDays(7)))
          .build();

  EffectFixture(S store) {
    this.store = store;
    this.effects = store.effects().orElseThrow();
  }

  static EffectFixture<MemoryStore> memory() {
    return new EffectFixture<>(new MemoryStore());
  }

  private final Map<PollerKey, Long> sequences = new java.util.HashMap<>();
  private final Map<PollerKey, Lease> pollerLeases = new java.util.HashMap<>();

  /** Appends one event to the log of {@link #ORDERS}; returns its position. */
  long append(EventType type, String id, String customer) {
    return append(ORDERS, type, id, customer);
  }

  /** Appends one event to the log of {@code key}; returns its position there. */
  long append(PollerKey key, EventType type, String id, String customer) {
    long seq = sequences.merge(key, 1L, Long::sum);
    JsonNode data = Json.MAPPER.valueToTree(new Order(id, customer));
    String json =
        Envelope.of(
                "id-" + key.partition() + seq,
                type,
                key.poller(),
                key.partition(),
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
    Lease lease =
        pollerLeases.computeIfAbsent(
            key,
            k -> store.acquireLease(k, "poller", Duration.ofDays(365), clock.now()).orElseThrow());
    store.commitPoll(
        key,
        lease,
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

  /** Appends created events for customers, one position each, from 1. */
  void created(String... customers) {
    for (String c : customers)
      append(EventType.CREATED, "o" + (sequences.getOrDefault(ORDERS, 0L) + 1), c);
  }

  /** Effects whose invocations run on the calling thread, driven pass by pass. */
  Effects.Builder builder(String instance) {
    return Effects.builder(store).time(clock).workers(Runnable::run).instanceId(instance);
  }

  Effects effects(String instance, Effect<?>... effects) {
    Effects.Builder b = builder(instance);
    for (Effect<?> e : effects) b.add(e);
    return b.build();
  }

  Effects effects(Effect<?>... effects) {
    return effects("engine-1", effects);
  }

  static EffectRun<?> run(Effects effects, String name) {
    return effects.run(name);
  }

  /** Passes until idle. */
  static void drain(Effects effects, String name) {
    effects.run(name).drain();
  }

  Optional<InvocationRow> row(String effect, long position) {
    return effects.loadInvocation(effect, ORDERS, position);
  }

  Effect.Builder<Order> effect(String name) {
    return Effect.builder(name).source(orders);
  }

  static Key<Order> byCustomer() {
    return Key.of("customer", e -> e.data().customer());
  }

  static Map<String, Integer> counts() {
    return new java.util.concurrent.ConcurrentHashMap<>();
  }

  /**
   * An engine running effect {@code name} with {@code arm} on created orders, keyed by customer,
   * with a seeded random (42) and {@code secretKey} when given: the engine of the HTTP and sealed
   * document tests.
   */
  Effects createdByCustomer(String name, Arm<Order> arm, @Nullable SealingKeys secretKey) {
    Effects.Builder b =
        builder("engine-1")
            .random(new Random(42))
            .add(effect(name).on(EventType.CREATED, arm, byCustomer()).build());
    if (secretKey != null) b.secretKey(secretKey);
    return b.build();
  }

  /**
   * Runs effect {@code Notify} with {@code arm} on one created order for {@code customer}, keyed by
   * customer, on an engine hiding {@code secrets}: a pass, then {@code apart} on the clock (a
   * failed first attempt's backoff), then another pass. Returns the engine for its status.
   */
  Effects runTwice(String customer, List<String> secrets, Arm<Order> arm, Duration apart) {
    created(customer);
    Effects effects =
        builder("engine-1")
            .secrets(secrets)
            .add(effect("Notify").on(EventType.CREATED, arm, byCustomer()).build())
            .build();
    drain(effects, "Notify");
    clock.advance(apart);
    drain(effects, "Notify");
    return effects;
  }

  /**
   * An arm on orders that records each position it runs in {@link #ran} and fails the positions in
   * {@link #failing} with {@code IllegalStateException("<word> at <position>")}, the message the
   * lane and quarantine tests assert on.
   */
  static final class FailingArm implements Arm<Order> {
    final Set<Long> failing = ConcurrentHashMap.newKeySet();
    final List<Long> ran = new CopyOnWriteArrayList<>();
    private final String word;

    FailingArm(String word) {
      this.word = word;
    }

    @Override
    public void run(EffectContext ctx, ChangeEvent<Order> e) {
      ran.add(e.sequence());
      if (failing.contains(e.sequence()))
        throw new IllegalStateException(word + " at " + e.sequence());
    }
  }
}
