/**
 * The admin HTTP server of an engine: {@code io.watukuy.admin.AdminServer} (docs/operations.md,
 * "Admin HTTP").
 */
module io.watukuy.admin {
  requires transitive io.watukuy;
  requires transitive micrometer.registry.prometheus;
  requires jdk.httpserver;
  requires com.fasterxml.jackson.databind;
  requires org.slf4j;
  requires static org.jspecify;
  // Optional: only a server given effects(Effects) loads a class of it.
  requires static io.watukuy.effects;

  exports io.watukuy.admin;
}
