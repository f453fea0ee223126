package io.watukuy.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.watukuy.Watukuy;
import io.watukuy.opentelemetry.WatukuyTracing;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Traces and observations wired from the application's beans (docs/spring-boot.md, "Wiring"): an
 * {@code OpenTelemetry} bean gets the engine's spans on the engine's clock, {@code
 * watukuy.tracing.enabled=false} turns them off, and without OpenTelemetry the meters time through
 * the application's {@code ObservationRegistry}.
 */
class WatukuyTracingWiringTest {
  static final Instant START = Instant.parse("2026-03-01T10:00:00Z");

  final InMemorySpanExporter spans = InMemorySpanExporter.create();

  final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(WatukuyAutoConfiguration.class))
          .withUserConfiguration(
              Fixtures.Orders.class, Fixtures.RecordingHandler.class, Fixtures.Deterministic.class)
          .withPropertyValues("watukuy.store.uri=memory:", "watukuy.auto-startup=false");

  OpenTelemetry openTelemetry() {
    return OpenTelemetrySdk.builder()
        .setTracerProvider(
            SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
        .build();
  }

  @Test
  void anOpenTelemetryBeanGetsACycleSpanAndDeliverySpansOnTheEnginesClock() {
    runner
        .withBean(OpenTelemetry.class, this::openTelemetry)
        .run(
            ctx -> {
              assertThat(ctx).hasSingleBean(WatukuyTracing.class);
              ctx.getBean(Watukuy.class).tick();

              List<SpanData> finished = spans.getFinishedSpanItems();
              List<String> names = finished.stream().map(SpanData::getName).toList();
              assertThat(names).containsOnlyOnce("watukuy.poll orders");
              assertThat(names).contains("watukuy.deliver orders");
              SpanData cycle =
                  finished.stream()
                      .filter(s -> s.getName().equals("watukuy.poll orders"))
                      .findFirst()
                      .orElseThrow();
              // The virtual clock of the fixtures stands at 10:00 and tick() does not move it.
              assertThat(cycle.getStartEpochNanos())
                  .isEqualTo(TimeUnit.SECONDS.toNanos(START.getEpochSecond()));
            });
  }

  @Test
  void tracingCanBeTurnedOff() {
    runner
        .withBean(OpenTelemetry.class, this::openTelemetry)
        .withPropertyValues("watukuy.tracing.enabled=false")
        .run(
            ctx -> {
              assertThat(ctx).doesNotHaveBean(WatukuyTracing.class);
              ctx.getBean(Watukuy.class).tick();
              assertThat(spans.getFinishedSpanItems()).isEmpty();
            });
  }

  @Test
  void withoutOpenTelemetryTheMetersObserveThroughTheApplicationsRegistry() {
    List<String> observed = new CopyOnWriteArrayList<>();
    ObservationRegistry observations = ObservationRegistry.create();
    observations
        .observationConfig()
        .observationHandler(
            new ObservationHandler<Observation.Context>() {
              @Override
              public void onStop(Observation.Context context) {
                observed.add(context.getName());
              }

              @Override
              public boolean supportsContext(Observation.Context context) {
                return true;
              }
            });
    runner
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withBean(ObservationRegistry.class, () -> observations)
        .run(
            ctx -> {
              assertThat(ctx).doesNotHaveBean(WatukuyTracing.class);
              ctx.getBean(Watukuy.class).tick();
              assertThat(observed).containsOnlyOnce("watukuy.poll");
            });
  }
}
