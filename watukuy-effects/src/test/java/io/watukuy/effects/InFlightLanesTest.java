package io.watukuy.effects;

import static io.watukuy.effects.EffectFixture.byCustomer;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.watukuy.EventType;
import io.watukuy.effects.EffectFixture.Order;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.store.memory.MemoryStore;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * docs/effects.md, "Position": an invocation running for {@link InFlightLane#THRESHOLD} or more is
 * reported in flight, and an HTTP call's re-send leaves its error on the running row. The held arm
 * runs on a real worker thread held by a latch; its age runs on the virtual clock.
 */
class InFlightLanesTest {
  private final EffectFixture<MemoryStore> f = EffectFixture.memory();
  private final CountDownLatch started = new CountDownLatch(1);
  private final CountDownLatch proceed = new CountDownLatch(1);
  private final ExecutorService worker = Executors.newSingleThreadExecutor();

  @AfterEach
  void stopWorker() {
    proceed.countDown();
    worker.shutdownNow();
  }

  @Test
  void aCallBlockedForThirtySecondsIsInFlightNotBefore() throws Exception {
    f.created("a");
    Effect<Order> e =
        f.effect("Notify")
            .on(
                EventType.CREATED,
                (ctx, ev) ->
                    ctx.call(
                        "crm-note",
                        Map.of("customer", ev.data().customer()),
                        () -> {
                          started.countDown();
                          proceed.await();
                        }),
                byCustomer())
            .build();
    Effects effects = f.builder("engine-1").workers(worker).add(e).build();
    effects.run("Notify").pass();
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

    f.clock.advance(Duration.ofSeconds(29));
    assertThat(effects.status("Notify").inFlightLanes()).isEmpty();
    assertThat(effects.status("Notify").sources().get(0).stuckLanes()).isEmpty();

    f.clock.advance(Duration.ofSeconds(2));
    EffectStatus status = effects.status("Notify");
    assertThat(status.inFlightLanes())
        .containsExactly(new InFlightLane("customer:a", 1, 1, 31_000, null));
    assertThat(status.sources().get(0).inFlightLanes()).hasSize(1);
    // Running is not failing: the lane is not wedged, the effect lags behind it.
    assertThat(status.state()).isEqualTo(EffectState.LAGGING);

    proceed.countDown();
    worker.shutdown();
    assertThat(worker.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    EffectFixture.drain(effects, "Notify");
    assertThat(effects.status("Notify").inFlightLanes()).isEmpty();
    effects.close();
  }

  @Test
  void aReSentHttpCallLeavesItsErrorOnTheRunningRowWithTheSecretsHidden() throws IOException {
    String secret = "tok-5f1c9a";
    // The first request answers 503; the re-send reads the row as the store shows it meanwhile.
    List<InvocationRow> seenByResend = new CopyOnWriteArrayList<>();
    AtomicInteger requests = new AtomicInteger();
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        x -> {
          x.getRequestBody().readAllBytes();
          if (requests.incrementAndGet() == 1) {
            x.sendResponseHeaders(503, -1);
          } else {
            f.row("Notify", 1).ifPresent(seenByResend::add);
            x.sendResponseHeaders(200, -1);
          }
          x.close();
        });
    server.start();
    try {
      // A path that holds a secret: the row's label has the path, so the error hides it.
      String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/hook/" + secret;
      f.created("a");
      Effects effects =
          f.builder("engine-1")
              .secrets(List.of(secret))
              .add(
                  f.effect("Notify")
                      .on(
                          EventType.CREATED,
                          (ctx, ev) -> ctx.http().send(EffectHttp.Request.of("POST", url)),
                          byCustomer())
                      .build())
              .build();
      EffectFixture.drain(effects, "Notify");

      assertThat(seenByResend).hasSize(1);
      InvocationRow during = seenByResend.get(0);
      assertThat(during.status()).isEqualTo(InvocationStatus.RUNNING);
      assertThat(during.error())
          .startsWith("POST http://127.0.0.1:")
          .endsWith("/hook/[redacted]: HTTP 503, re-sending (attempt 2 of 4)")
          .doesNotContain(secret);
      assertThat(f.row("Notify", 1).orElseThrow().status()).isEqualTo(InvocationStatus.DONE);
      assertThat(f.row("Notify", 1).orElseThrow().error()).isNull();
      effects.close();
    } finally {
      server.stop(0);
    }
  }
}
