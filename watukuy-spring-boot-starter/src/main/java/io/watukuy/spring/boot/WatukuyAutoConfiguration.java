package io.watukuy.spring.boot;

import io.watukuy.ConfigException;
import io.watukuy.Poller;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.micrometer.WatukuyMetrics;
import io.watukuy.spi.StateStore;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Builds and runs an engine from the application's {@link Poller} beans (docs/spring-boot.md): the
 * store from {@code watukuy.store.*} or the application's {@code DataSource}, handlers, batch
 * handlers and sinks bound by {@link WatukuyHandler}, every {@link WatukuyListener} bean as a
 * listener, budgets and delivery options from {@link WatukuyProperties}, then each {@link
 * WatukuyCustomizer}. Applies when at least one {@code Poller} bean exists and {@code
 * watukuy.enabled} is not false. Each bean backs off when the application declares its own.
 *
 * <p>With Actuator present it adds the {@code watukuy} health indicator and endpoint; with
 * watukuy-micrometer and a {@code MeterRegistry} bean, the meters of {@link WatukuyMetrics}.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"
    })
@ConditionalOnBooleanProperty(name = "watukuy.enabled", matchIfMissing = true)
@ConditionalOnBean(Poller.class)
@EnableConfigurationProperties(WatukuyProperties.class)
public class WatukuyAutoConfiguration {

  /** For the Spring container; applications do not call it. */
  public WatukuyAutoConfiguration() {}

  /**
   * The store of {@code watukuy.store.*}.
   *
   * @param properties the {@code watukuy.*} keys
   * @param dataSource the application's DataSource, used unless {@code watukuy.store.uri} is set
   * @return a store the context closes; one over the application's DataSource leaves it open
   * @throws ConfigException when no store can be made, naming the key to set
   */
  @Bean
  @ConditionalOnMissingBean
  public StateStore watukuyStore(
      WatukuyProperties properties, ObjectProvider<DataSource> dataSource) {
    return StoreFactory.create(properties.getStore(), dataSource.getIfUnique());
  }

  /**
   * The engine, built but not started ({@link WatukuyLifecycle} starts it).
   *
   * @param beans where the handler beans are looked up
   * @return an engine the context closes after the lifecycle stopped it
   * @throws ConfigException for a property out of range or a handler bean bound wrongly, naming the
   *     key or bean
   */
  @Bean
  @ConditionalOnMissingBean
  public Watukuy watukuy(
      WatukuyProperties properties,
      StateStore store,
      ObjectProvider<Poller<?>> pollers,
      ObjectProvider<WatukuyListener> listeners,
      ObjectProvider<WatukuyCustomizer> customizers,
      ListableBeanFactory beans) {
    List<Poller<?>> all = pollers.orderedStream().toList();
    HandlerBindings bindings = HandlerBindings.read(beans, all);
    Watukuy.Builder b = Watukuy.builder().store(store).leaseTtl(properties.getLeaseTtl());
    all.forEach(b::poller);
    if (properties.getInstanceId() != null) b.instanceId(properties.getInstanceId());
    b.delivery(properties.getDelivery().toOptions());
    for (Map.Entry<String, WatukuyProperties.Budget> e : properties.getBudgets().entrySet())
      budget(b, e.getKey(), e.getValue());
    listeners.orderedStream().forEach(b::listener);
    bindings.sinks(b);
    List<WatukuyCustomizer> custom = customizers.orderedStream().toList();
    custom.forEach(c -> c.customize(b));
    Watukuy engine = build(b, all, properties);
    custom.forEach(c -> c.built(engine));
    bindings.handlers(engine);
    return engine;
  }

  /**
   * Builds the engine; a budget a poller names but nobody declares gets the keys that declare it.
   */
  private static Watukuy build(
      Watukuy.Builder b, List<Poller<?>> pollers, WatukuyProperties properties) {
    try {
      return b.build();
    } catch (ConfigException e) {
      for (Poller<?> p : pollers) {
        String budget = p.budget();
        if (budget != null
            && !properties.getBudgets().containsKey(budget)
            && String.valueOf(e.getMessage()).contains("budget '" + budget + "' is not declared"))
          throw new ConfigException(
              e.getMessage()
                  + "; declare it with the property watukuy.budgets."
                  + budget
                  + ".requests (tokens per period; optional: watukuy.budgets."
                  + budget
                  + ".per, default 1s, and .burst) or in Java with a WatukuyCustomizer"
                  + " calling Watukuy.Builder.budget(\""
                  + budget
                  + "\", ..)");
      }
      throw e;
    }
  }

  private static void budget(Watukuy.Builder b, String name, WatukuyProperties.Budget p) {
    try {
      Integer burst = p.getBurst();
      b.budget(
          name,
          new io.watukuy.BudgetLimit(
              p.getRequests(), p.getPer(), burst != null ? burst : p.getRequests()));
    } catch (ConfigException e) {
      // The message is whole; the engine's exception would only repeat it without the key.
      throw new ConfigException("watukuy.budgets." + name + ": " + e.getMessage());
    }
  }

  /**
   * Starts the engine with the context and drains it on shutdown.
   *
   * @return the lifecycle of {@code watukuy}
   */
  @Bean
  @ConditionalOnMissingBean
  public WatukuyLifecycle watukuyLifecycle(Watukuy watukuy, WatukuyProperties properties) {
    return new WatukuyLifecycle(
        watukuy, properties.getStore().isMigrate(), properties.isAutoStartup());
  }

  /**
   * The {@code watukuy} health indicator, with spring-boot-health on the class path. The class
   * condition sits on an outer class of its own: Spring loads every condition of one class before
   * it evaluates any, and the enabled-indicator condition is a class of that same module.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
  static class HealthConfiguration {
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnEnabledHealthIndicator("watukuy")
    static class Enabled {
      @Bean
      @ConditionalOnMissingBean(name = "watukuyHealthIndicator")
      WatukuyHealthIndicator watukuyHealthIndicator(Watukuy watukuy, WatukuyProperties properties) {
        return new WatukuyHealthIndicator(watukuy, properties.getHealth().isShowKeys());
      }
    }
  }

  /**
   * The {@code /actuator/watukuy} endpoint, when Actuator is on the class path and exposes it (the
   * class condition apart, as for the health indicator).
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name =
          "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint")
  static class EndpointConfiguration {
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnAvailableEndpoint(WatukuyEndpoint.class)
    static class Available {
      @Bean
      @ConditionalOnMissingBean
      WatukuyEndpoint watukuyEndpoint(Watukuy watukuy) {
        return new WatukuyEndpoint(watukuy);
      }

      /** A misspelt body field is a 400 naming it, not an operation on every partition. */
      @Bean
      org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor
          watukuyEndpointFields() {
        return new WatukuyEndpointFields();
      }
    }

    /** On Spring MVC, a JSON array in the body reaches the write operation. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnAvailableEndpoint(WatukuyEndpoint.class)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(
        name = "org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdviceAdapter")
    static class ServletBody {
      @Bean
      WatukuyEndpointBody watukuyEndpointBody(
          ObjectProvider<org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints>
              endpoints) {
        return new WatukuyEndpointBody(endpoints);
      }
    }
  }

  /**
   * The meters of watukuy-micrometer on the application's {@code MeterRegistry}. The metrics bean
   * is a {@link WatukuyListener}, so the engine takes it with the other listener beans; the
   * customizer points its gauges at the engine.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name = {
        "io.watukuy.micrometer.WatukuyMetrics",
        "io.micrometer.core.instrument.MeterRegistry"
      })
  @ConditionalOnBean(type = "io.micrometer.core.instrument.MeterRegistry")
  static class MetricsConfiguration {
    /**
     * Timings go through the application's {@code ObservationRegistry} when it has one (Boot's
     * gives timers, and spans with micrometer-tracing), unless {@code WatukuyTracing} already
     * traces the engine: then the meters keep an observation registry of their own, so a cycle is
     * not traced twice.
     */
    @Bean
    @ConditionalOnMissingBean
    WatukuyMetrics watukuyMetrics(
        io.micrometer.core.instrument.MeterRegistry registry,
        ObjectProvider<io.micrometer.observation.ObservationRegistry> observations,
        ListableBeanFactory beans) {
      io.micrometer.observation.ObservationRegistry observation = observations.getIfUnique();
      // By name: watukuy-opentelemetry may be absent from the class path.
      boolean traced = beans.containsBean("watukuyTracing");
      return observation == null || traced
          ? new WatukuyMetrics(registry)
          : new WatukuyMetrics(registry, observation);
    }

    @Bean
    WatukuyCustomizer watukuyMetricsGauges(
        WatukuyMetrics metrics, ObjectProvider<Poller<?>> pollers) {
      return new WatukuyCustomizer() {
        @Override
        public void built(Watukuy engine) {
          // The lease and budget series exist at 0 from the start, as with run --admin.
          metrics.declare(pollers.orderedStream().toList());
          metrics.watch(engine);
        }
      };
    }
  }

  /**
   * The spans of watukuy-opentelemetry on the application's {@code OpenTelemetry}
   * (docs/spring-boot.md, "Wiring"): a span per cycle, a client span per HTTP attempt, a span per
   * delivery, and the W3C trace context on every message a sink writes. Off with {@code
   * watukuy.tracing.enabled=false}.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name = {"io.watukuy.opentelemetry.WatukuyTracing", "io.opentelemetry.api.OpenTelemetry"})
  @ConditionalOnBean(type = "io.opentelemetry.api.OpenTelemetry")
  @ConditionalOnBooleanProperty(name = "watukuy.tracing.enabled", matchIfMissing = true)
  static class TracingConfiguration {
    @Bean
    @ConditionalOnMissingBean
    io.watukuy.opentelemetry.WatukuyTracing watukuyTracing(
        io.opentelemetry.api.OpenTelemetry openTelemetry,
        ObjectProvider<io.watukuy.TimeSource> time) {
      io.watukuy.opentelemetry.WatukuyTracing.Builder b =
          io.watukuy.opentelemetry.WatukuyTracing.builder(openTelemetry);
      io.watukuy.TimeSource t = time.getIfUnique();
      if (t != null) b.time(t);
      return b.build();
    }
  }
}
