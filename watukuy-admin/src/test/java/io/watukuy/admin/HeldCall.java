package io.watukuy.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.EventType;
import io.watukuy.Poller;
import io.watukuy.effects.Effect;
import io.watukuy.effects.Key;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * An effect whose arm's journaled call blocks until {@link #close()}, on a worker thread of its
 * own: the invocation an in-flight lane shows (docs/effects.md, "Position"), held for as long as a
 * test advances its virtual clock.
 */
final class HeldCall implements AutoCloseable {
  private final CountDownLatch started = new CountDownLatch(1);
  private final CountDownLatch proceed = new CountDownLatch(1);

  /** The effects' worker, for {@code Effects.builder(...).workers(...)}: the held call takes it. */
  final ExecutorService worker = Executors.newSingleThreadExecutor();

  /**
   * Effect {@code name} on the created events of {@code source}, one lane per identity, whose call
   * {@code crm-note} blocks until {@link #close()}.
   */
  Effect<JsonNode> effect(String name, Poller<JsonNode> source) {
    return Effect.builder(name)
        .source(source)
        .on(
            EventType.CREATED,
            (ctx, e) ->
                ctx.call(
                    "crm-note",
                    e.identity(),
                    () -> {
                      started.countDown();
                      proceed.await();
                    }),
            Key.identity())
        .build();
  }

  /** Whether the call started within {@code wait} (real time: the worker is a real thread). */
  boolean started(Duration wait) throws InterruptedException {
    return started.await(wait.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Lets the call return and shuts the worker down. */
  @Override
  public void close() {
    proceed.countDown();
    worker.shutdown();
  }
}
