package io.watukuy.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.watukuy.Watukuy;
import io.watukuy.micrometer.WatukuyMetrics;
import io.watukuy.testing.VirtualClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The health indicator and the {@code watukuy} endpoint over a ticked engine: DOWN with the stale
 * key's reasons once {@code staleAfter} (5 min) passes without a successful poll, and the
 * endpoint's inspection, parked listing, pause, resume, trigger, retry and discard.
 */
class WatukuyActuatorTest {
  final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(WatukuyAutoConfiguration.class))
          .withUserConfiguration(
              Fixtures.Orders.class, Fixtures.RecordingHandler.class, Fixtures.Deterministic.class)
          .withPropertyValues(
              "watukuy.store.uri=memory:",
              "watukuy.auto-startup=false",
              "management.endpoints.web.exposure.include=watukuy");

  @Test
  void healthIsUpAfterAPollThenDownWithTheStaleReasonPastStaleAfter() {
    runner.run(
        ctx -> {
          WatukuyHealthIndicator indicator = ctx.getBean(WatukuyHealthIndicator.class);
          assertThat(ctx.getBeanNamesForType(WatukuyHealthIndicator.class))
              .containsExactly("watukuyHealthIndicator");
          ctx.getBean(Watukuy.class).tick();
          Health up = indicator.health();
          assertThat(up.getStatus()).isEqualTo(Status.UP);
          assertThat(up.getDetails()).isEqualTo(Map.of("keys", 1, "unhealthy", 0));

          // The poll succeeded at 10:00; staleAfter is 5 min, so 10:05:01 is past it.
          ctx.getBean(VirtualClock.class).advance(Duration.ofMinutes(5).plusSeconds(1));
          Health down = indicator.health();
          assertThat(down.getStatus()).isEqualTo(Status.DOWN);
          assertThat(down.getDetails()).containsEntry("keys", 1).containsEntry("unhealthy", 1);
          @SuppressWarnings("unchecked")
          Map<String, Map<String, Object>> pollers =
              (Map<String, Map<String, Object>>) down.getDetails().get("pollers");
          assertThat(pollers).containsOnlyKeys("orders");
          assertThat(pollers.get("orders").get("reasons")).isEqualTo(List.of("stale"));
          assertThat((String) pollers.get("orders").get("problem")).contains("staleAfter (5m)");
        });
  }

  @Test
  void healthWithoutKeysListsCountsOnly() {
    runner
        .withPropertyValues("watukuy.health.show-keys=false")
        .run(
            ctx -> {
              ctx.getBean(Watukuy.class).tick();
              ctx.getBean(VirtualClock.class).advance(Duration.ofMinutes(6));
              Health down = ctx.getBean(WatukuyHealthIndicator.class).health();
              assertThat(down.getStatus()).isEqualTo(Status.DOWN);
              assertThat(down.getDetails()).isEqualTo(Map.of("keys", 1, "unhealthy", 1));
            });
  }

  @Test
  void theEndpointIsAbsentUnlessExposed() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WatukuyAutoConfiguration.class))
        .withUserConfiguration(
            Fixtures.Orders.class, Fixtures.RecordingHandler.class, Fixtures.Deterministic.class)
        .withPropertyValues("watukuy.store.uri=memory:", "watukuy.auto-startup=false")
        .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(WatukuyEndpoint.class));
  }

  @Test
  @SuppressWarnings("unchecked")
  void theEndpointInspectsPausesResumesTriggersAndRetriesOrDiscardsParkedEvents() {
    runner.run(
        ctx -> {
          Watukuy engine = ctx.getBean(Watukuy.class);
          WatukuyEndpoint endpoint = ctx.getBean(WatukuyEndpoint.class);
          List<String> seen = ctx.getBean(Fixtures.RecordingHandler.Seen.class).events;
          engine.tick(); // a delivered, p parked

          List<Map<String, Object>> keys =
              (List<Map<String, Object>>) endpoint.inspect().get("pollers");
          assertThat(keys).singleElement().satisfies(k -> assertThat(k.get("parked")).isEqualTo(1));
          Map<String, Object> orders = endpoint.poller("orders");
          List<Map<String, Object>> parked = (List<Map<String, Object>>) orders.get("parked");
          assertThat(parked).singleElement();
          assertThat((String) parked.get(0).get("error")).contains("refused p");
          assertThat(endpoint.poller("nope")).isNull();

          assertThat(endpoint.operate("orders", "pause", null, null))
              .isEqualTo(Map.of("poller", "orders", "action", "pause"));
          assertThat(engine.inspect().poller("orders").orElseThrow().paused()).isNotNull();
          endpoint.operate("orders", "resume", null, null);
          assertThat(engine.inspect().poller("orders").orElseThrow().paused()).isNull();
          endpoint.operate("orders", "trigger", null, null);

          // Retry hands p to the handler again, which refuses it again: parked once more.
          seen.clear();
          assertThat(endpoint.operate("orders", "retry", null, null)).containsEntry("count", 1);
          engine.tick();
          assertThat(seen).containsExactly("created:p");
          String id =
              (String)
                  ((List<Map<String, Object>>) endpoint.poller("orders").get("parked"))
                      .get(0)
                      .get("id");
          assertThat(endpoint.operate("orders", "discard", null, List.of("other")))
              .containsEntry("count", 0);
          assertThat(endpoint.operate("orders", "discard", null, List.of(id)))
              .containsEntry("count", 1);
          assertThat(engine.parked().list("orders")).isEmpty();

          assertThatThrownBy(() -> endpoint.operate("orders", "jump", null, null))
              .isInstanceOf(InvalidEndpointRequestException.class)
              .hasMessage("unknown action 'jump': pause, resume, trigger, retry or discard");
          assertThatThrownBy(() -> endpoint.operate("nope", "pause", null, null))
              .isInstanceOf(InvalidEndpointRequestException.class)
              .hasMessageStartingWith("nope pause: ");
          assertThatThrownBy(() -> endpoint.operate("nope", "retry", null, null))
              .isInstanceOf(InvalidEndpointRequestException.class)
              .hasMessage("nope retry: unknown poller 'nope'");
        });
  }

  @Test
  void aMeterRegistryBeanGetsTheMeters() {
    runner
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(
            ctx -> {
              assertThat(ctx).hasSingleBean(WatukuyMetrics.class);
              ctx.getBean(Watukuy.class).tick();
              MeterRegistry registry = ctx.getBean(MeterRegistry.class);
              // Two created events (a and p); one acked, one parked.
              assertThat(
                      registry.get(WatukuyMetrics.EVENTS).tag("type", "created").counter().count())
                  .isEqualTo(2.0);
              assertThat(
                      registry.get(WatukuyMetrics.PARKED).tag("poller", "orders").gauge().value())
                  .isEqualTo(1.0);
            });
    runner.run(ctx -> assertThat(ctx).doesNotHaveBean(WatukuyMetrics.class));
  }
}
