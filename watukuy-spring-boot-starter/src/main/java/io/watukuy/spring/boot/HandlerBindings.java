package io.watukuy.spring.boot;

import io.watukuy.BatchHandler;
import io.watukuy.ConfigException;
import io.watukuy.Handler;
import io.watukuy.Poller;
import io.watukuy.Watukuy;
import io.watukuy.sink.Sink;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * Which handler, batch handler or sink bean serves which poller, read from {@link WatukuyHandler}
 * (docs/spring-boot.md, "Wiring"). Sinks go to the builder, since the engine opens and closes them;
 * handlers and batch handlers are attached to the built engine.
 */
final class HandlerBindings {
  private static final Logger log = LoggerFactory.getLogger(HandlerBindings.class);

  private record Binding(String bean, Object target) {}

  private final Map<String, Poller<?>> pollers;
  private final Map<String, Binding> byPoller = new LinkedHashMap<>();

  private HandlerBindings(Map<String, Poller<?>> pollers) {
    this.pollers = pollers;
  }

  /**
   * Reads every handler, batch handler and sink bean of {@code beans}.
   *
   * @throws ConfigException for a bean without {@link WatukuyHandler}, one that names a poller no
   *     bean declares, or two beans for one poller; the message names the beans and pollers
   */
  static HandlerBindings read(ListableBeanFactory beans, List<Poller<?>> pollerBeans) {
    Map<String, Poller<?>> pollers = new LinkedHashMap<>();
    for (Poller<?> p : pollerBeans) pollers.put(p.name(), p);
    HandlerBindings b = new HandlerBindings(pollers);
    Set<String> seen = new HashSet<>();
    // Sink first: a sink is a batch handler too, and it must go to the builder.
    for (Class<?> type : List.of(Sink.class, BatchHandler.class, Handler.class))
      for (String name : beans.getBeanNamesForType(type)) if (seen.add(name)) b.bind(beans, name);
    return b;
  }

  private void bind(ListableBeanFactory beans, String name) {
    WatukuyHandler names = beans.findAnnotationOnBean(name, WatukuyHandler.class);
    if (names == null || names.value().length == 0)
      throw new ConfigException(
          "bean '"
              + name
              + "' is a watukuy handler but names no poller: annotate its class or @Bean method"
              + " with @WatukuyHandler(\"<poller>\"); the pollers are "
              + pollers.keySet());
    Object target = beans.getBean(name);
    for (String poller : names.value()) {
      if (!pollers.containsKey(poller))
        throw new ConfigException(
            "bean '"
                + name
                + "': @WatukuyHandler names poller '"
                + poller
                + "', but no Poller bean has that name; the pollers are "
                + pollers.keySet());
      Binding before = byPoller.putIfAbsent(poller, new Binding(name, target));
      if (before != null)
        throw new ConfigException(
            "bean '"
                + name
                + "': @WatukuyHandler names poller '"
                + poller
                + "', which bean '"
                + before.bean()
                + "' already handles; a poller takes one handler, batch handler or sink");
    }
  }

  /** Gives the sinks to the builder, which opens them before their first batch. */
  void sinks(Watukuy.Builder builder) {
    byPoller.forEach(
        (poller, b) -> {
          if (b.target() instanceof Sink sink) builder.sink(pollers.get(poller), sink);
        });
  }

  /** Attaches handlers and batch handlers; warns for pollers left without any. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  void handlers(Watukuy engine) {
    List<String> bare = new ArrayList<>();
    for (Map.Entry<String, Poller<?>> e : pollers.entrySet()) {
      Binding b = byPoller.get(e.getKey());
      Poller poller = e.getValue();
      if (b == null) bare.add(e.getKey());
      else if (b.target() instanceof Sink) continue;
      else if (b.target() instanceof BatchHandler batch) engine.onBatch(poller, batch);
      else engine.on(poller, (Handler) b.target());
    }
    // The engine keeps such a poller's events in the outbox until Watukuy.on(..) attaches one.
    if (!bare.isEmpty())
      log.warn(
          "pollers {} have no @WatukuyHandler bean: their events wait in the outbox until a"
              + " handler is attached with Watukuy.on(..)",
          bare);
  }
}
