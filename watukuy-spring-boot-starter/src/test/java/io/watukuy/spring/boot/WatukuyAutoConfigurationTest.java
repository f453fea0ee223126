package io.watukuy.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.Handler;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import io.watukuy.Watukuy;
import io.watukuy.spi.StateStore;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.FakeApi;
import io.watukuy.testing.VirtualClock;
import java.io.InputStream;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.UrlResource;
import org.springframework.core.io.support.PropertiesLoaderUtils;
import org.springframework.util.StringUtils;

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

    // The defaults an IDE shows are the engine's (docs/spring-boot.md, "Properties").
    Map<String, String> defaults = new LinkedHashMap<>();
    List<String> descriptions = new ArrayList<>();
    for (JsonNode p : metadata.get("properties")) {
      if (p.has("defaultValue"))
        defaults.put(p.get("name").asText(), p.get("defaultValue").asText());
      descriptions.add(p.path("description").asText());
    }
    assertThat(defaults)
        .containsEntry(
            "watukuy.delivery.concurrency", String.valueOf(DeliveryOptions.DEFAULT_CONCURRENCY))
        .containsEntry(
            "watukuy.delivery.dispatch-batch-size",
            String.valueOf(DeliveryOptions.DEFAULT_DISPATCH_BATCH_SIZE))
        .containsEntry(
            "watukuy.delivery.batch-size", String.valueOf(DeliveryOptions.DEFAULT_BATCH_SIZE))
        .containsEntry("watukuy.lease-ttl", "30s")
        .containsEntry("watukuy.enabled", "true")
        .containsEntry("watukuy.auto-startup", "true")
        .containsEntry("watukuy.store.table-prefix", "watukuy_")
        .containsEntry("watukuy.store.schema", "public")
        .containsEntry("watukuy.store.migrate", "true");
    assertThat(Watukuy.DEFAULT_LEASE_TTL).isEqualTo(Duration.ofSeconds(30));
    // an IDE shows descriptions as plain text: no Javadoc tags
    assertThat(descriptions).noneMatch(d -> d.contains("{@"));
  }

  @Test
  void aBudgetNoOneDeclaresSaysWhichPropertyDeclaresIt() {
    runner
        .withUserConfiguration(BudgetedPoller.class)
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .hasMessage(
                        "poller vendorOrders: budget 'vendor' is not declared (the engine declares"
                            + " no budget); declare it with the property"
                            + " watukuy.budgets.vendor.requests (tokens per period; optional:"
                            + " watukuy.budgets.vendor.per, default 1s, and .burst) or in Java"
                            + " with a WatukuyCustomizer calling"
                            + " Watukuy.Builder.budget(\"vendor\", ..)"));
    runner
        .withUserConfiguration(BudgetedPoller.class)
        .withPropertyValues("watukuy.budgets.vendor.requests=5")
        .run(ctx -> assertThat(ctx).hasNotFailed());
  }

  @Configuration(proxyBeanMethods = false)
  static class BudgetedPoller {
    @Bean
    Poller<JsonNode> vendorOrders(FakeApi api) {
      return Poller.builder("vendorOrders", JsonNode.class)
          .identity(n -> n.get("id").asText())
          .cursor(Cursors.snapshotDiff())
          .fetch(api.snapshotFetcher(10))
          .schedule(Fixtures.FIXED)
          .budget("vendor")
          .build();
    }

    @Bean
    @WatukuyHandler("vendorOrders")
    Handler<JsonNode> vendorOrdersHandler() {
      return e -> {};
    }
  }

  @Test
  void aStartFailureIsAnalysedIntoADescriptionAndAnAction() throws Exception {
    // Boot finds failure analyzers under this key of META-INF/spring.factories.
    List<String> registered = new ArrayList<>();
    for (URL url :
        Collections.list(getClass().getClassLoader().getResources("META-INF/spring.factories")))
      registered.addAll(
          StringUtils.commaDelimitedListToSet(
              PropertiesLoaderUtils.loadProperties(new UrlResource(url))
                  .getProperty(FailureAnalyzer.class.getName(), "")));
    assertThat(registered).contains(WatukuyFailureAnalyzer.class.getName());
    WatukuyFailureAnalyzer analyzer = new WatukuyFailureAnalyzer();
    runner
        .withPropertyValues("watukuy.budgets.vendor.requests=0")
        .run(
            ctx -> {
              FailureAnalysis a = analyzer.analyze(ctx.getStartupFailure());
              assertThat(a.getDescription())
                  .isEqualTo(
                      "watukuy could not start: watukuy.budgets.vendor: budget requests must be"
                          + " >= 1, but was 0");
              assertThat(a.getAction())
                  .isEqualTo(
                      "Correct the property watukuy.budgets.vendor"
                          + " (docs/spring-boot.md, \"Properties\" lists every watukuy.* key),"
                          + " or set watukuy.enabled=false to leave the engine out.");
            });
    runner
        .withUserConfiguration(MisspeltHandler.class)
        .run(
            ctx -> {
              FailureAnalysis a = analyzer.analyze(ctx.getStartupFailure());
              assertThat(a.getDescription())
                  .startsWith("watukuy could not start: bean 'misspelt': @WatukuyHandler names");
              assertThat(a.getAction()).startsWith("Fix the handler bean named above");
            });
    runner
        .withUserConfiguration(BudgetedPoller.class)
        .run(
            ctx ->
                assertThat(analyzer.analyze(ctx.getStartupFailure()).getAction())
                    .isEqualTo(
                        "Correct the poller or property named above"
                            + " (docs/spring-boot.md, \"Properties\" and \"Wiring\"),"
                            + " or set watukuy.enabled=false to leave the engine out."));
    // not watukuy's failure: left to Boot's other analyzers
    assertThat(analyzer.analyze(new IllegalStateException("other"))).isNull();
  }

  @Test
  void aMisspeltKeyStopsTheStartAndTheReportNamesItWithoutItsValue() {
    WatukuyFailureAnalyzer analyzer = new WatukuyFailureAnalyzer();
    for (String misspelt :
        List.of(
            "watukuy.enable=false",
            "watukuy.stor.uri=memory:",
            "watukuy.delivery.concurency=4",
            "watukuy.budgets.vendor.reqests=5",
            "watukuy.store.pasword=SECRET")) {
      String key = misspelt.substring(0, misspelt.indexOf('='));
      runner
          .withPropertyValues(misspelt)
          .run(
              ctx -> {
                assertThat(ctx).as(misspelt).hasFailed();
                FailureAnalysis a = analyzer.analyze(ctx.getStartupFailure());
                assertThat(a).as(misspelt).isNotNull();
                assertThat(a.getDescription())
                    .startsWith("watukuy could not start: unknown property " + key)
                    .doesNotContain("SECRET");
                assertThat(a.getAction())
                    .isEqualTo(
                        "Correct or remove it: docs/spring-boot.md, \"Properties\" lists every"
                            + " watukuy.* key (a misspelt key is refused rather than ignored).");
              });
    }
    // the keys spelt right, a budget's nested ones included, still bind
    runner
        .withUserConfiguration(BudgetedPoller.class)
        .withPropertyValues(
            "watukuy.enabled=true",
            "watukuy.budgets.vendor.requests=5",
            "watukuy.budgets.vendor.per=2s",
            "watukuy.budgets.vendor.burst=7",
            "watukuy.delivery.concurrency=4")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              WatukuyProperties p = ctx.getBean(WatukuyProperties.class);
              assertThat(p.getBudgets().get("vendor").getBurst()).isEqualTo(7);
              assertThat(p.getDelivery().getConcurrency()).isEqualTo(4);
            });
  }

  @Test
  void aDeliveryValueOutOfRangeNamesThePropertyAsWritten() {
    WatukuyFailureAnalyzer analyzer = new WatukuyFailureAnalyzer();
    runner
        .withPropertyValues("watukuy.delivery.concurrency=0")
        .run(
            ctx -> {
              FailureAnalysis a = analyzer.analyze(ctx.getStartupFailure());
              assertThat(a.getDescription())
                  .isEqualTo(
                      "watukuy could not start: watukuy.delivery.concurrency: must be >= 1, but"
                          + " was 0");
              assertThat(a.getAction())
                  .startsWith("Correct the property watukuy.delivery.concurrency (");
            });
    runner
        .withPropertyValues("watukuy.delivery.dispatch-batch-size=-1")
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .hasMessage("watukuy.delivery.dispatch-batch-size: must be >= 1, but was -1"));
  }

  @Configuration(proxyBeanMethods = false)
  static class SecondHandler {
    @Bean
    @WatukuyHandler("orders")
    Handler<JsonNode> secondHandler() {
      return e -> {};
    }
  }

  @Test
  void twoHandlersForOnePollerGetTheWatukuyHandlerAction() {
    runner
        .withUserConfiguration(SecondHandler.class)
        .run(
            ctx -> {
              FailureAnalysis a = new WatukuyFailureAnalyzer().analyze(ctx.getStartupFailure());
              assertThat(a.getDescription())
                  .matches(
                      "watukuy could not start: bean '\\w+': @WatukuyHandler names poller"
                          + " 'orders', which bean '\\w+' already handles; a poller takes one"
                          + " handler, batch handler or sink");
              assertThat(a.getAction()).startsWith("Fix the handler bean named above");
            });
  }

  @Test
  void aStoreFailureIsReportedWithItsSecretsHidden() {
    // The driver's and the pool's messages may quote the JDBC URL, password included.
    StoreException failure =
        new StoreException(
            "postgres store: migrate failed",
            new java.sql.SQLException(
                "cannot connect to jdbc:postgresql://admin:hunter2@127.0.0.1:5999/x"
                    + "?user=admin&password=SECRET&ssl=true"));
    FailureAnalysis a =
        new WatukuyFailureAnalyzer()
            .analyze(new IllegalStateException("Failed to start bean 'watukuyLifecycle'", failure));
    assertThat(a.getDescription())
        .isEqualTo(
            "watukuy could not start: the store failed: postgres store: migrate failed; caused by"
                + " cannot connect to jdbc:postgresql://admin:***@127.0.0.1:5999/x"
                + "?user=admin&password=***&ssl=true");
    assertThat(a.getAction()).startsWith("Check watukuy.store.uri (host, port, database,");
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

  @Test
  @ExtendWith(OutputCaptureExtension.class)
  void enabledFalseWithPollerBeansSaysOnceThatTheEngineIsDisabled(CapturedOutput output) {
    String line =
        "watukuy: the engine is disabled by the property watukuy.enabled=false; poller(s) orders"
            + " will not run";
    runner
        .withConfiguration(AutoConfigurations.of(WatukuyDisabledAutoConfiguration.class))
        .withPropertyValues("watukuy.enabled=false")
        .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(Watukuy.class));
    assertThat(output.getOut() + output.getErr()).containsOnlyOnce(line).contains("INFO");
    // enabled (the default) or no poller: not a word
    runner
        .withConfiguration(AutoConfigurations.of(WatukuyDisabledAutoConfiguration.class))
        .run(ctx -> assertThat(ctx).hasSingleBean(Watukuy.class));
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WatukuyDisabledAutoConfiguration.class))
        .withPropertyValues("watukuy.enabled=false")
        .run(ctx -> assertThat(ctx).hasNotFailed());
    assertThat(output.getOut() + output.getErr()).containsOnlyOnce("engine is disabled");
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
