package io.watukuy.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.watukuy.Watukuy;
import io.watukuy.micrometer.WatukuyMetrics;
import io.watukuy.testing.VirtualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameter;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The health indicator and the {@code watukuy} endpoint over a ticked engine: DOWN with the stale
 * key's reasons once {@code staleAfter} (5 min) passes without a successful poll, and the
 * endpoint's inspection, parked listing, pause, resume, trigger, retry and discard, its refusals (a
 * body {@code {"error": ...}} naming what was wrong), and the checks of the request's fields.
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
          WebEndpointResponse<Map<String, Object>> orders = endpoint.poller("orders");
          assertThat(orders.getStatus()).isEqualTo(200);
          List<Map<String, Object>> parked =
              (List<Map<String, Object>>) orders.getBody().get("parked");
          assertThat(parked).singleElement();
          // reason: the stored error read as one line; error: the stored JSON text itself
          assertThat(parked.get(0).get("reason")).isEqualTo("IllegalStateException: refused p");
          Map<String, Object> error =
              new ObjectMapper().readValue((String) parked.get(0).get("error"), Map.class);
          assertThat(error)
              .containsEntry("name", "IllegalStateException")
              .containsEntry("message", "refused p");

          assertThat(ok(endpoint.operate("orders", "pause", null, null)))
              .isEqualTo(Map.of("poller", "orders", "action", "pause"));
          assertThat(engine.inspect().poller("orders").orElseThrow().paused()).isNotNull();
          ok(endpoint.operate("orders", "resume", null, null));
          assertThat(engine.inspect().poller("orders").orElseThrow().paused()).isNull();
          ok(endpoint.operate("orders", "trigger", null, null));

          // Retry hands p to the handler again, which refuses it again: parked once more.
          seen.clear();
          assertThat(ok(endpoint.operate("orders", "retry", null, null))).containsEntry("count", 1);
          engine.tick();
          assertThat(seen).containsExactly("created:p");
          String id = (String) parkedOf(endpoint).get(0).get("id");
          // ids as the body's JSON array arrives (WatukuyEndpointBody), and as one plain id
          assertThat(ok(endpoint.operate("orders", "discard", null, "[\"other\"]")))
              .containsEntry("count", 0);
          assertThat(ok(endpoint.operate("orders", "retry", null, "[\"other\",\"" + id + "\"]")))
              .containsEntry("count", 1);
          engine.tick();
          String again = (String) parkedOf(endpoint).get(0).get("id");
          assertThat(ok(endpoint.operate("orders", "discard", null, again)))
              .containsEntry("count", 1);
          assertThat(engine.parked().list("orders")).isEmpty();
        });
  }

  @Test
  void theEndpointsRefusalsNameWhatWasWrong() {
    runner.run(
        ctx -> {
          WatukuyEndpoint endpoint = ctx.getBean(WatukuyEndpoint.class);
          assertError(endpoint.poller("nope"), 404, "unknown poller 'nope'; the pollers: orders");
          assertError(
              endpoint.operate("orders", "jump", null, null),
              400,
              "unknown action 'jump' on poller 'orders': pause, resume, trigger, retry, discard");
          assertError(
              endpoint.operate("nope", "pause", null, null),
              400,
              "unknown poller 'nope'; the pollers: orders");
          assertError(
              endpoint.operate("nope", "retry", null, null),
              400,
              "unknown poller 'nope'; the pollers: orders");
          assertError(
              endpoint.operate("orders", "discard", "eu", null),
              400,
              "poller 'orders' has no partitions, so no partition 'eu'");
          assertError(
              endpoint.operate("orders", "retry", null, "[1]"),
              400,
              "retry on poller 'orders': ids must be an array of strings such as [\"12\"] or one"
                  + " string such as \"12\", but held 1");
          // ids choose parked events; on pause, resume or trigger they are a mistake, not ignored
          for (String action : List.of("pause", "resume", "trigger"))
            assertError(
                endpoint.operate("orders", action, null, "[\"1\"]"),
                400,
                action
                    + " on poller 'orders' takes no ids; ids choose parked events, for retry"
                    + " and discard");
          assertThat(ctx.getBean(Watukuy.class).inspect().poller("orders").orElseThrow().paused())
              .isNull();
        });
  }

  @Test
  void aFieldTheOperationDoesNotTakeIsA400NamingIt() {
    WatukuyEndpointFields fields = new WatukuyEndpointFields();
    OperationParameters parameters = parameters("poller", "action", "partition", "ids");
    OperationInvoker invoker = context -> "ran";
    OperationInvoker write =
        fields.apply(EndpointId.of("watukuy"), OperationType.WRITE, parameters, invoker);
    assertThat(
            write.invoke(context(Map.of("poller", "orders", "action", "pause", "partition", "eu"))))
        .isEqualTo("ran");
    assertError(
        (WebEndpointResponse<?>)
            write.invoke(context(Map.of("poller", "orders", "action", "pause", "partiton", "eu"))),
        400,
        "unknown field 'partiton'; the fields are partition and ids");
    // A JSON null is not an absent field: Boot passes it on as a null argument, which the
    // operation would read as "every partition" or "every parked event".
    Map<String, Object> nullPartition = new java.util.HashMap<>();
    nullPartition.put("poller", "orders");
    nullPartition.put("action", "pause");
    nullPartition.put("partition", null);
    assertError(
        (WebEndpointResponse<?>) write.invoke(context(nullPartition)),
        400,
        "partition is null; leave the field out to mean every partition, or give a value");
    Map<String, Object> nullIds = new java.util.HashMap<>();
    nullIds.put("poller", "orders");
    nullIds.put("action", "discard");
    nullIds.put("ids", null);
    assertError(
        (WebEndpointResponse<?>) write.invoke(context(nullIds)),
        400,
        "ids is null; leave the field out to mean every parked event, or give a value");
    assertThat(write.invoke(context(Map.of("poller", "orders", "action", "discard"))))
        .isEqualTo("ran");
    assertError(
        (WebEndpointResponse<?>)
            write.invoke(context(Map.of(WatukuyEndpointFields.REFUSED, "the body is not JSON"))),
        400,
        "the body is not JSON");
    // other endpoints and the read operations are left alone
    assertThat(fields.apply(EndpointId.of("health"), OperationType.WRITE, parameters, invoker))
        .isSameAs(invoker);
    assertThat(fields.apply(EndpointId.of("watukuy"), OperationType.READ, parameters, invoker))
        .isSameAs(invoker);
  }

  @Test
  void onSpringMvcTheBodyIsCheckedAndItsArraysReachTheOperationAsJsonText() throws Exception {
    assertThat(rewrite("{\"ids\":[\"1\",\"2\"],\"partition\":\"eu\"}"))
        .isEqualTo("{\"ids\":\"[\\\"1\\\",\\\"2\\\"]\",\"partition\":\"eu\"}");
    assertThat(rewrite("{\"ids\":\"7\"}")).isEqualTo("{\"ids\":\"7\"}");
    // null is not absent: refused, never "all"
    assertThat(refusal("{\"ids\":\"7\",\"partition\":null}"))
        .isEqualTo(
            "partition is null; leave the field out to mean every partition, or give a value");
    assertThat(refusal("{\"ids\":null}"))
        .isEqualTo("ids is null; leave the field out to mean every parked event, or give a value");
    // ids: an array of strings or one string, nothing else
    String idsShape =
        "ids must be an array of strings such as [\"12\"] or one string such as \"12\"";
    assertThat(refusal("{\"ids\":7}")).isEqualTo(idsShape + ", but was 7");
    assertThat(refusal("{\"ids\":true}")).isEqualTo(idsShape + ", but was true");
    assertThat(refusal("{\"ids\":{\"x\":\"6\"}}")).isEqualTo(idsShape + ", but was {\"x\":\"6\"}");
    assertThat(refusal("{\"ids\":[\"1\",2]}")).isEqualTo(idsShape + ", but was [\"1\",2]");
    assertThat(rewrite("{}")).isEqualTo("{}");
    assertThat(refusal("{\"partiton\":\"eu\"}"))
        .isEqualTo("unknown field 'partiton'; the fields are partition and ids");
    // the path names the poller and the action; the body cannot override them
    assertThat(refusal("{\"action\":\"discard\"}"))
        .isEqualTo("unknown field 'action'; the fields are partition and ids");
    assertThat(refusal("{\"partition\":5}")).isEqualTo("partition must be a string, but was 5");
    assertThat(refusal("[\"1\"]"))
        .isEqualTo(
            "the body must be a JSON object such as {\"partition\": \"eu\", \"ids\": [\"12\"]}");
    assertThat(refusal("{} {}")).startsWith("the body is not JSON: ");
    assertThat(refusal("{\"ids\":")).startsWith("the body is not JSON: ");
  }

  private static String rewrite(String body) throws Exception {
    return new String(
        WatukuyEndpointBody.rewrite(body.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
  }

  private static String refusal(String body) throws Exception {
    return new ObjectMapper().readTree(rewrite(body)).get(WatukuyEndpointFields.REFUSED).asText();
  }

  private static InvocationContext context(Map<String, Object> arguments) {
    return new InvocationContext(SecurityContext.NONE, arguments);
  }

  private static OperationParameters parameters(String... names) {
    List<OperationParameter> list = new ArrayList<>();
    for (String name : names)
      list.add(
          new OperationParameter() {
            @Override
            public String getName() {
              return name;
            }

            @Override
            public Class<?> getType() {
              return String.class;
            }

            @Override
            public boolean isMandatory() {
              return false;
            }

            @Override
            public <T extends java.lang.annotation.Annotation> @Nullable T getAnnotation(
                Class<T> annotation) {
              return null;
            }
          });
    return new OperationParameters() {
      @Override
      public int getParameterCount() {
        return list.size();
      }

      @Override
      public OperationParameter get(int index) {
        return list.get(index);
      }

      @Override
      public Iterator<OperationParameter> iterator() {
        return list.iterator();
      }

      @Override
      public Stream<OperationParameter> stream() {
        return list.stream();
      }
    };
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> parkedOf(WatukuyEndpoint endpoint) {
    return (List<Map<String, Object>>) ok(endpoint.poller("orders")).get("parked");
  }

  private static Map<String, Object> ok(WebEndpointResponse<Map<String, Object>> response) {
    assertThat(response.getStatus()).as(String.valueOf(response.getBody())).isEqualTo(200);
    return response.getBody();
  }

  private static void assertError(WebEndpointResponse<?> response, int status, String error) {
    assertThat(response.getStatus()).isEqualTo(status);
    assertThat(response.getBody()).isEqualTo(Map.of("error", error));
  }

  @Test
  void aMeterRegistryBeanGetsTheMeters() {
    runner
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(
            ctx -> {
              assertThat(ctx).hasSingleBean(WatukuyMetrics.class);
              MeterRegistry registry = ctx.getBean(MeterRegistry.class);
              // Declared up front, so an alert on it has a series before the first lost lease.
              assertThat(
                      registry
                          .get(WatukuyMetrics.LEASES_LOST)
                          .tag("poller", "orders")
                          .counter()
                          .count())
                  .isZero();
              ctx.getBean(Watukuy.class).tick();
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
