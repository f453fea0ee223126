package io.watukuy.spring.boot;

import io.watukuy.Watukuy;
import java.util.Objects;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the engine once every bean of the context exists and stops it, draining, on shutdown
 * (docs/spring-boot.md, "Lifecycle"). Its phase is {@link SmartLifecycle#DEFAULT_PHASE}: it starts
 * after the web server and stops before it, so the Actuator endpoints answer while the engine
 * drains.
 */
public final class WatukuyLifecycle implements SmartLifecycle {
  private final Watukuy engine;
  private final boolean migrate;
  private final boolean autoStartup;
  private volatile boolean running;

  /**
   * A lifecycle for {@code engine}.
   *
   * @param engine the engine, not started
   * @param migrate whether {@link Watukuy#migrate()} creates or upgrades the store's tables first
   * @param autoStartup whether the context starts it ({@code watukuy.auto-startup})
   */
  public WatukuyLifecycle(Watukuy engine, boolean migrate, boolean autoStartup) {
    this.engine = Objects.requireNonNull(engine, "engine");
    this.migrate = migrate;
    this.autoStartup = autoStartup;
  }

  /**
   * Migrates the store when asked, then starts the daemon.
   *
   * @throws io.watukuy.StoreException when the store cannot be migrated: the context fails to start
   *     rather than run an engine without tables
   */
  @Override
  public void start() {
    if (running) return;
    if (migrate) engine.migrate();
    engine.start();
    running = true;
  }

  /**
   * Stops the daemon and waits for handler calls in flight, up to {@link
   * Watukuy#DEFAULT_DRAIN_TIMEOUT}; the rest stay in the outbox for the next start (G1).
   */
  @Override
  public void stop() {
    if (!running) return;
    try {
      engine.stop(true);
    } finally {
      running = false;
    }
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public boolean isAutoStartup() {
    return autoStartup;
  }

  @Override
  public int getPhase() {
    return DEFAULT_PHASE;
  }
}
