package io.watukuy.internal;

import io.watukuy.BatchHandler;
import io.watukuy.ChangeEvent;
import io.watukuy.ConfigException;
import io.watukuy.HandlerUnavailableException;
import io.watukuy.Watukuy;
import io.watukuy.sink.Sink;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's sinks (docs/sinks.md): each opened once, before its first batch or by {@link
 * Watukuy#openSinks()}, and closed once when the engine closes. A sink that cannot open leaves its
 * pollers' events pending: the batch fails with {@link HandlerUnavailableException} naming the
 * sink, which the engine backs off like any destination outage, and the next batch opens it again.
 */
final class SinkLifecycle {
  private static final Logger errors = LoggerFactory.getLogger(Watukuy.ERROR_LOGGER);

  private final Map<Sink, Opened> sinks = new IdentityHashMap<>();

  /** The batch handler that opens {@code sink} on first use, one per sink however many pollers. */
  synchronized BatchHandler<Object> handler(Sink sink) {
    return sinks.computeIfAbsent(sink, Opened::new);
  }

  /**
   * Opens each sink not open yet, every one tried. One failure is thrown with the others suppressed
   * by it, so a caller can report each sink that failed: the first {@link ConfigException} when a
   * sink can never work (the others wait for nothing), else the first failure.
   */
  void openAll() {
    List<Opened> all;
    synchronized (this) {
      all = new ArrayList<>(sinks.values());
    }
    List<RuntimeException> failures = new ArrayList<>();
    for (Opened o : all) {
      try {
        o.ensureOpen();
      } catch (RuntimeException e) {
        failures.add(e);
      }
    }
    if (failures.isEmpty()) return;
    RuntimeException thrown =
        failures.stream()
            .filter(ConfigException.class::isInstance)
            .findFirst()
            .orElse(failures.get(0));
    for (RuntimeException e : failures) if (e != thrown) thrown.addSuppressed(e);
    throw thrown;
  }

  /** Closes every sink that was opened; a failure is logged, not thrown. */
  void closeAll() {
    List<Opened> all;
    synchronized (this) {
      all = new ArrayList<>(sinks.values());
    }
    for (Opened o : all) o.close();
  }

  /** A sink and whether it is open. */
  private static final class Opened implements BatchHandler<Object> {
    private final Sink sink;
    private boolean open; // guarded by this
    private boolean closed; // guarded by this

    Opened(Sink sink) {
      this.sink = sink;
    }

    synchronized void ensureOpen() {
      if (open) return;
      if (closed) throw new HandlerUnavailableException("sink " + sink.name() + " is closed", null);
      try {
        sink.open();
        open = true;
      } catch (ConfigException e) {
        throw e.getMessage() != null && e.getMessage().contains(sink.name())
            ? e
            : new ConfigException("sink " + sink.name() + ": " + e.getMessage(), e);
      } catch (HandlerUnavailableException e) {
        throw e;
      } catch (Exception e) {
        throw new HandlerUnavailableException(
            "sink " + sink.name() + " cannot start: " + e.getMessage(), e);
      }
    }

    @Override
    public BatchResult handle(List<ChangeEvent<Object>> events) throws Exception {
      try {
        ensureOpen();
      } catch (ConfigException e) {
        // Never works as configured: the events wait for a fixed config, they are not at fault.
        throw new HandlerUnavailableException(e.getMessage(), e);
      }
      return sink.handle(events);
    }

    @Override
    public boolean inSequenceOrder() {
      return sink.inSequenceOrder();
    }

    synchronized void close() {
      if (closed) return;
      closed = true;
      if (!open) return;
      try {
        sink.close();
      } catch (Exception e) {
        errors.warn("sink {}: close failed: {}", sink.name(), e.toString());
      }
    }
  }
}
