package io.watukuy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.BudgetLimit;
import io.watukuy.ConfigException;
import io.watukuy.DeliveryOptions;
import io.watukuy.Poller;
import io.watukuy.TimeSource;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.cli.CliConfig.StoreSpec;
import io.watukuy.sink.Sink;
import io.watukuy.spi.StateStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A store and an engine over a config's pollers, for one command; closes both. Its own file because
 * every command opens one: {@code run}, {@code inspect} and each operation of {@link
 * OperationCommands}.
 */
final class Session implements AutoCloseable {
  /**
   * The engine's clock, sleeps and timers ({@code Watukuy.Builder.time}, guarantee G8): the
   * system's in a release. A package-private hook so that tests in this package run commands at
   * instants they choose (a {@code VirtualClock}) instead of sleeping past a duration such as
   * {@code staleAfter}; the command line has no way to set it. Read when a session opens; a test
   * sets it before the commands and puts the previous one back after.
   */
  static volatile TimeSource time = TimeSource.system();

  final StateStore store;
  final Watukuy engine;
  final List<Poller<JsonNode>> pollers;

  Session(CliConfig config) {
    this(refuseNew(config), List.of());
  }

  /**
   * Only {@code run} creates a store (and says so): any other command on a SQLite file that does
   * not exist would create an empty store and report a healthy key, hiding a typo in the path.
   */
  private static CliConfig refuseNew(CliConfig config) {
    Stores.checkFolder(config.store());
    if (Stores.isNew(config.store()))
      throw new ConfigException(
          "store sqlite:"
              + config.store().sqlitePath().toAbsolutePath()
              + " does not exist; run creates it (check the path)");
    return config;
  }

  private Session(CliConfig config, List<Void> unused) {
    this(
        config.store(),
        YamlPollers.build(config),
        config.delivery(),
        config.secrets(),
        List.of(),
        config.budgets(),
        config.budgetStore(),
        config.leaseTtl(),
        store -> Map.of());
    config.credentials().bind(store); // the signers of grant: refreshToken (StoredCredentials)
  }

  Session(StoreSpec spec, List<Poller<JsonNode>> pollers, DeliveryOptions delivery) {
    this(spec, pollers, delivery, Set.of());
  }

  /**
   * Over {@code pollers}, which may be {@link OperationCommands#standIn stand-ins} for {@code
   * --store}.
   */
  Session(
      StoreSpec spec,
      List<Poller<JsonNode>> pollers,
      DeliveryOptions delivery,
      Set<String> secrets) {
    this(spec, pollers, delivery, secrets, WatukuyListener.NONE);
  }

  Session(
      StoreSpec spec,
      List<Poller<JsonNode>> pollers,
      DeliveryOptions delivery,
      Set<String> secrets,
      WatukuyListener listener) {
    this(
        spec,
        pollers,
        delivery,
        secrets,
        List.of(listener),
        Map.of(),
        null,
        Watukuy.DEFAULT_LEASE_TTL,
        store -> Map.of());
  }

  /**
   * With the config's rate budgets, which its pollers may name, kept in {@code budgetStore} when it
   * is set (shared with other instances) or in this process, the config's lease TTL, and the sinks
   * {@code sinks} makes once the store is open (by poller name; a poller without one has no
   * handler).
   */
  Session(
      StoreSpec spec,
      List<Poller<JsonNode>> pollers,
      DeliveryOptions delivery,
      Set<String> secrets,
      List<WatukuyListener> listeners,
      Map<String, BudgetLimit> budgets,
      @Nullable StoreSpec budgetStore,
      Duration leaseTtl,
      Function<StateStore, Map<String, ? extends Sink>> sinks) {
    this.pollers = pollers;
    this.store = Cli.open(spec);
    try {
      if (budgetStore != null) shared = Stores.budgetStore(budgetStore);
      // The sink is one stream: handlers run on the cycle's thread, so lines come in outbox
      // order (per key, and across keys of one poller) and one write never interleaves another.
      Watukuy.Builder b =
          Watukuy.builder()
              .store(store)
              .delivery(delivery)
              .handlerExecutor(Runnable::run)
              .secrets(secrets) // ${ENV} values never show in engine errors or logs
              .leaseTtl(leaseTtl)
              .time(time);
      listeners.forEach(b::listener); // called in order, each behind its own guard
      pollers.forEach(b::poller);
      Map<String, ? extends Sink> made = sinks.apply(store);
      for (Poller<JsonNode> p : pollers) {
        Sink sink = made.get(p.name());
        if (sink != null) b.sink(p, sink);
      }
      budgets.forEach(b::budget);
      if (shared != null) b.budgetStore(shared.store());
      this.engine = b.build();
    } catch (RuntimeException e) {
      store.close();
      closeShared();
      throw e;
    }
  }

  private Stores.@Nullable BudgetStore shared;

  private void closeShared() {
    if (shared == null) return;
    try {
      shared.connection().close();
    } catch (Exception e) {
      // closing a connection we no longer use: nothing to recover
    }
  }

  @Override
  public void close() {
    try {
      engine.close();
    } finally {
      try {
        store.close();
      } finally {
        closeShared();
      }
    }
  }
}
