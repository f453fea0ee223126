package io.watukuy.spring.boot;

import io.watukuy.KeyHealth;
import io.watukuy.Watukuy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The verdict of {@link Watukuy#health()} (issue §4) as Actuator health, contributed as {@code
 * watukuy}: UP when every key is healthy, DOWN otherwise, with each unhealthy key's reasons ({@code
 * stale}, {@code circuitOpen}, {@code poisonHalt}, {@code stalled}, {@code failing}, {@code
 * deletesHeld}, {@code parkedOver}) and problem in the details. Paused keys are healthy.
 *
 * <p>It joins {@code /actuator/health} but not the readiness group: a vendor that is down makes
 * this DOWN, and a readiness probe that failed on it would take every instance out of service and
 * block a deploy for something no restart fixes (docs/spring-boot.md, "Health").
 */
public final class WatukuyHealthIndicator implements HealthIndicator {
  private final Watukuy engine;
  private final boolean showKeys;

  /**
   * An indicator over {@code engine}.
   *
   * @param engine asked on every call; its inspection reads the store
   * @param showKeys whether DOWN lists each unhealthy key ({@code watukuy.health.show-keys})
   */
  public WatukuyHealthIndicator(Watukuy engine, boolean showKeys) {
    this.engine = Objects.requireNonNull(engine, "engine");
    this.showKeys = showKeys;
  }

  /**
   * The engine's health. A store that cannot be read gives DOWN with the error's type and message
   * (store messages carry no credentials).
   *
   * @return UP or DOWN with details {@code keys}, {@code unhealthy} and, when DOWN, {@code
   *     pollers}: key to reasons and problem
   */
  @Override
  public Health health() {
    io.watukuy.Health verdict;
    try {
      verdict = engine.health();
    } catch (RuntimeException e) {
      return Health.down()
          .withDetail("error", e.getClass().getSimpleName() + ": " + e.getMessage())
          .build();
    }
    List<KeyHealth> unhealthy = verdict.unhealthy();
    Health.Builder b = unhealthy.isEmpty() ? Health.up() : Health.down();
    b.withDetail("keys", verdict.keys().size()).withDetail("unhealthy", unhealthy.size());
    if (showKeys && !unhealthy.isEmpty()) {
      Map<String, Object> pollers = new LinkedHashMap<>();
      for (KeyHealth k : unhealthy) {
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("reasons", k.reasons().stream().map(KeyHealth.Reason::wire).toList());
        detail.put("problem", k.problem());
        pollers.put(k.key().toString(), detail);
      }
      b.withDetail("pollers", pollers);
    }
    return b.build();
  }
}
