/**
 * The engine's Micrometer meters: {@code io.watukuy.micrometer.WatukuyMetrics}, a listener and
 * gauges over the engine's inspection (docs/operations.md, "Metrics").
 */
module io.watukuy.micrometer {
  requires transitive io.watukuy;
  requires transitive micrometer.core;
  requires transitive micrometer.observation;
  requires org.slf4j;
  requires static org.jspecify;

  exports io.watukuy.micrometer;
}
