/**
 * The engine's OpenTelemetry traces: {@code io.watukuy.opentelemetry.WatukuyTracing}, a listener
 * that turns cycles, HTTP requests and deliveries into spans and gives sinks the W3C trace context
 * (docs/operations.md, "Traces").
 */
module io.watukuy.opentelemetry {
  requires transitive io.watukuy;
  requires transitive io.opentelemetry.api;
  requires io.opentelemetry.context;
  requires static org.jspecify;

  exports io.watukuy.opentelemetry;
}
