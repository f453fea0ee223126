package io.watukuy.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Handler;
import io.watukuy.Watukuy;
import io.watukuy.testing.ReadsWallClock;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The context starts the engine's daemon and, on close, stops it with drain: a handler call in
 * flight finishes before the close returns. Real threads and the system clock, as in an
 * application; every wait is bounded.
 */
class WatukuyLifecycleTest {
  static final CountDownLatch started = new CountDownLatch(1);
  static final CountDownLatch release = new CountDownLatch(1);
  static final AtomicBoolean finished = new AtomicBoolean();

  @Configuration(proxyBeanMethods = false)
  static class SlowHandler {
    @Bean
    @WatukuyHandler("orders")
    Handler<JsonNode> slow() {
      return e -> {
        if (!e.identity().equals("a")) return;
        started.countDown();
        if (release.await(10, TimeUnit.SECONDS)) finished.set(true);
      };
    }
  }

  @Test
  @ReadsWallClock("the daemon runs on real threads and the system clock, as in an application")
  void closingTheContextDrainsTheHandlerCallInFlight() throws Exception {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WatukuyAutoConfiguration.class))
        .withUserConfiguration(Fixtures.Orders.class, SlowHandler.class)
        .withPropertyValues("watukuy.store.uri=memory:")
        .run(
            ctx -> {
              WatukuyLifecycle lifecycle = ctx.getBean(WatukuyLifecycle.class);
              assertThat(lifecycle.isRunning()).isTrue();
              assertThat(started.await(10, TimeUnit.SECONDS))
                  .as("the daemon's first cycle reached the handler")
                  .isTrue();
              Thread closer =
                  new Thread(
                      () ->
                          ((ConfigurableApplicationContext) ctx.getSourceApplicationContext())
                              .close());
              closer.start();
              closer.join(300);
              assertThat(closer.isAlive()).as("the close waits for the handler").isTrue();
              assertThat(finished).isFalse();
              release.countDown();
              closer.join(10_000);
              assertThat(closer.isAlive()).isFalse();
              assertThat(finished)
                  .as("the handler call finished before the close returned")
                  .isTrue();
              assertThat(lifecycle.isRunning()).isFalse();
            });
  }

  @Test
  void autoStartupFalseLeavesTheEngineToTheApplication() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WatukuyAutoConfiguration.class))
        .withUserConfiguration(
            Fixtures.Orders.class, Fixtures.RecordingHandler.class, Fixtures.Deterministic.class)
        .withPropertyValues("watukuy.store.uri=memory:", "watukuy.auto-startup=false")
        .run(
            ctx -> {
              assertThat(ctx.getBean(WatukuyLifecycle.class).isRunning()).isFalse();
              ctx.getBean(Watukuy.class).tick();
              assertThat(ctx.getBean(Fixtures.RecordingHandler.Seen.class).events).hasSize(2);
            });
  }
}
