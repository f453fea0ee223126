package io.watukuy.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.watukuy.DeliveryOptions;
import io.watukuy.Handler;
import io.watukuy.PollerKey;
import io.watukuy.Watukuy;
import io.watukuy.spi.StateStore;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.VirtualClock;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The auto-configuration in a plain application context: the {@code watukuy.*} keys bind and are
 * described in the generated metadata, handler beans are bound by {@link WatukuyHandler}, and every
 * wiring mistake fails the start with a message that names the bean, poller or key.
 */
class WatukuyAutoConfigurationTest {
  final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(WatukuyAutoConfiguration.class))
          .withUserConfiguration(
              Fixtures.Orders.class, Fixtures.RecordingHandler.class, Fixtures.Deterministic.class)
          .withPropertyValues("watukuy.store.uri=memory:", "watukuy.auto-startup=false");

  @Test
  void theKeysBind() {
    runner
        .withPropertyValues(
            "watukuy.instance-id=node-1",
            "watukuy.lease-ttl=45s",
            "watukuy.delivery.concurrency=3",
            "watukuy.delivery.dispatch-batch-size=50",
            "watukuy.delivery.batch-size=20",
            "watukuy.budgets.vendor.requests=5",
            "watukuy.budgets.vendor.per=10s",
            "watukuy.budgets.vendor.burst=2",
            "watukuy.store.table-prefix=app_",
            "watukuy.store.schema=events",
            "watukuy.store.migrate=false",
            "watukuy.health.show-keys=false")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              WatukuyProperties p = ctx.getBean(WatukuyProperties.class);
              assertThat(p.getInstanceId()).isEqualTo("node-1");
              assertThat(p.getLeaseTtl()).isEqualTo(Duration.ofSeconds(45));
              assertThat(p.getDelivery().toOptions()).isEqualTo(new DeliveryOptions(3, 50, 20));
              WatukuyProperties.Budget vendor = p.getBudgets().get("vendor");
              assertThat(vendor.getRequests()).isEqualTo(5);
              assertThat(vendor.getPer()).isEqualTo(Duration.ofSeconds(10));
              assertThat(vendor.getBurst()).isEqualTo(2);
              assertThat(p.getStore().getTablePrefix()).isEqualTo("app_");
              assertThat(p.getStore().getSchema()).isEqualTo("events");
              assertThat(p.getStore().isMigrate()).isFalse();
              assertThat(p.getHealth().isShowKeys()).isFalse();
              assertThat(p.isAutoStartup()).isFalse();
            });
  }

  @Test
  void theDefaultsAreTheEngines() {
    runner.run(
        ctx -> {
          WatukuyProperties p = ctx.getBean(WatukuyProperties.class);
          assertThat(p.isEnabled()).isTrue();
          assertThat(p.getLeaseTtl()).isEqualTo(Watukuy.DEFAULT_LEASE_TTL);
          assertThat(p.getDelivery().toOptions()).isEqualTo(DeliveryOptions.DEFAULT);
          assertThat(p.getStore().getTablePrefix()).isEqualTo("watukuy_");
          assertThat(ctx.getBean(StateStore.class)).isInstanceOf(MemoryStore.class);
        });
  }

  @Test
  void theGeneratedMetadataDescribesEveryKey() throws Exception {
    JsonNode metadata;
    try (InputStream in =
        getClass()
            .getClassLoader()
            .getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("META-INF/spring-configuration-metadata.json").isNotNull();
      metadata = new ObjectMapper().readTree(in);
    }
    List<String> described = new ArrayList<>();
    for (JsonNode p : metadata.get("properties"))
      if (p.hasNonNull("description")) described.add(p.get("name").asText());
    assertThat(described)
        .contains(
            "watukuy.enabled",
            "watukuy.auto-startup",
            "watukuy.instance-id",
            "watukuy.lease-ttl",
            "watukuy.store.uri",
            "watukuy.store.username",
            "watukuy.store.password",
            "watukuy.store.table-prefix",
            "watukuy.store.schema",
            "watukuy.store.migrate",
            "watukuy.delivery.concurrency",
            "watukuy.delivery.dispatch-batch-size",
            "watukuy.delivery.batch-size",
            "watukuy.budgets",
            "watukuy.health.show-keys",
            "watukuy.tracing.enabled");
  }

  @Test
  void aTickDeliversToTheAnnotatedHandlerAndParksWhatItRefuses() {
    runner.run(
        ctx -> {
          Watukuy engine = ctx.getBean(Watukuy.class);
          engine.tick();
          assertThat(ctx.getBean(Fixtures.RecordingHandler.Seen.class).events)
              .containsExactlyInAnyOrder("created:a", "created:p");
          assertThat(engine.parked().list("orders"))
              .singleElement()
              .satisfies(p -> assertThat(p.row().error()).contains("refused p"));
        });
  }

  @Test
  void noPollerBeanOrEnabledFalseMeansNoEngine() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WatukuyAutoConfiguration.class))
        .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(Watukuy.class));
    runner
        .withPropertyValues("watukuy.enabled=false")
        .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(Watukuy.class));
  }

  @Configuration(proxyBeanMethods = false)
  static class UnnamedHandler {
    @Bean
    Handler<JsonNode> strayHandler() {
      return e -> {};
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class MisspeltHandler {
    @Bean
    @WatukuyHandler("order")
    Handler<JsonNode> misspelt() {
      return e -> {};
    }
  }

  @Test
  void aHandlerWithoutAPollerNameFailsTheStartNamingTheBean() {
    runner
        .withUserConfiguration(UnnamedHandler.class)
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .hasMessage(
                        "bean 'strayHandler' is a watukuy handler but names no poller: annotate"
                            + " its class or @Bean method with @WatukuyHandler(\"<poller>\");"
                            + " the pollers are [orders]"));
  }

  @Test
  void aHandlerNamingAnUnknownPollerFailsTheStart() {
    runner
        .withUserConfiguration(MisspeltHandler.class)
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .hasMessage(
                        "bean 'misspelt': @WatukuyHandler names poller 'order', but no Poller"
                            + " bean has that name; the pollers are [orders]"));
  }

  @Test
  void aBudgetOutOfRangeNamesItsKey() {
    runner
        .withPropertyValues("watukuy.budgets.vendor.requests=0")
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .hasMessage("watukuy.budgets.vendor: budget requests must be >= 1, but was 0"));
  }

  @Test
  void aStoreUriOfNoKnownFormShowsOnlyItsScheme() {
    runner
        .withPropertyValues("watukuy.store.uri=mongodb://user:hunter2@db/x")
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .hasMessage(
                        "watukuy.store.uri: 'mongodb:...' is not a store URI (memory:,"
                            + " sqlite:PATH, postgres:jdbc:postgresql://...,"
                            + " mariadb:jdbc:mariadb://...)")
                    .hasMessageNotContaining("hunter2"));
  }

  @Test
  void noDataSourceAndNoUriSaysWhatToSet() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WatukuyAutoConfiguration.class))
        .withUserConfiguration(Fixtures.Orders.class, Fixtures.RecordingHandler.class)
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .hasMessageStartingWith(
                        "watukuy.store: the application has no DataSource and watukuy.store.uri"
                            + " is not set"));
  }

  @Test
  void theEngineIsOnTheCustomizersClock() {
    runner.run(
        ctx -> {
          Watukuy engine = ctx.getBean(Watukuy.class);
          assertThat(engine.inspect().at()).isEqualTo(ctx.getBean(VirtualClock.class).now());
          assertThat(engine.inspect().key(PollerKey.of("orders"))).isPresent();
        });
  }

  @Test
  void withoutActuatorOrMicrometerTheEngineStillRuns() {
    runner
        .withClassLoader(
            new FilteredClassLoader(
                "org.springframework.boot.health",
                "org.springframework.boot.actuate",
                "io.watukuy.micrometer",
                "io.micrometer"))
        .withPropertyValues("management.endpoints.web.exposure.include=watukuy")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed().hasSingleBean(Watukuy.class);
              assertThat(ctx).doesNotHaveBean("watukuyHealthIndicator");
              assertThat(ctx).doesNotHaveBean("watukuyEndpoint");
              assertThat(ctx).doesNotHaveBean("watukuyMetrics");
              ctx.getBean(Watukuy.class).tick();
              assertThat(ctx.getBean(Fixtures.RecordingHandler.Seen.class).events).hasSize(2);
            });
  }
}
