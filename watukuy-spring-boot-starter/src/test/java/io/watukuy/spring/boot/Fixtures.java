package io.watukuy.spring.boot;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cursors;
import io.watukuy.DeliveryPolicy;
import io.watukuy.Handler;
import io.watukuy.PoisonPolicy;
import io.watukuy.Poller;
import io.watukuy.RetryPolicy;
import io.watukuy.Schedule;
import io.watukuy.Watukuy;
import io.watukuy.testing.FakeApi;
import io.watukuy.testing.SeededRandom;
import io.watukuy.testing.VirtualClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * An application's beans, in parts a test picks from for the starter's tests: a poller {@code
 * orders} over a {@link FakeApi} holding items {@code a} and {@code p}, a handler that records what
 * it sees and refuses {@code p}, and a customizer that puts the engine on a virtual clock with
 * same-thread executors, so that {@code tick()} runs a whole cycle deterministically.
 */
final class Fixtures {
  static final Schedule FIXED =
      Schedule.every(Duration.ofSeconds(30)).withAdaptive(false).withJitter(0);

  private Fixtures() {}

  /** The clock, the vendor and the poller. */
  @Configuration(proxyBeanMethods = false)
  static class Orders {
    @Bean
    VirtualClock clock() {
      return VirtualClock.at("2026-03-01T10:00:00Z");
    }

    @Bean
    FakeApi api(VirtualClock clock) {
      FakeApi api = new FakeApi(clock);
      api.put("a", Map.of("n", 1));
      api.put("p", Map.of("n", 2));
      return api;
    }

    @Bean
    Poller<JsonNode> orders(FakeApi api) {
      return Poller.builder("orders", JsonNode.class)
          .identity(n -> n.get("id").asText())
          .cursor(Cursors.snapshotDiff())
          .fetch(api.snapshotFetcher(10))
          .schedule(FIXED)
          .staleAfter(Duration.ofMinutes(5))
          .delivery(
              new DeliveryPolicy(
                  RetryPolicy.attempts(1), new PoisonPolicy(PoisonPolicy.Action.PARK, false)))
          .build();
    }
  }

  /** What the handler saw, as {@code type:identity}; it refuses {@code p}, which is parked. */
  @Configuration(proxyBeanMethods = false)
  static class RecordingHandler {
    /** What the handler saw, as {@code type:identity}. */
    static final class Seen {
      final List<String> events = new CopyOnWriteArrayList<>();
    }

    @Bean
    Seen seen() {
      return new Seen();
    }

    @Bean
    @WatukuyHandler("orders")
    Handler<JsonNode> ordersHandler(Seen seen) {
      return e -> {
        seen.events.add(e.type().wire() + ":" + e.identity());
        if (e.identity().equals("p")) throw new IllegalStateException("refused p");
      };
    }
  }

  /** The engine on the virtual clock, with same-thread executors: {@code tick()} runs it all. */
  @Configuration(proxyBeanMethods = false)
  static class Deterministic {
    @Bean
    WatukuyCustomizer deterministic(VirtualClock clock) {
      return new WatukuyCustomizer() {
        @Override
        public void customize(Watukuy.Builder builder) {
          builder
              .time(clock)
              .random(SeededRandom.of(7))
              .instanceId("a")
              .executor(Runnable::run)
              .handlerExecutor(Runnable::run);
        }
      };
    }
  }
}
