package io.watukuy.engine;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.EventType;
import io.watukuy.Handler;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** A handler that records what it receives and can be told to fail for some events. */
final class Recorder implements Handler<JsonNode> {
  private final List<ChangeEvent<JsonNode>> events = new ArrayList<>();
  private volatile Predicate<ChangeEvent<JsonNode>> failWhen = e -> false;
  private volatile Runnable during = () -> {};

  @Override
  public synchronized void handle(ChangeEvent<JsonNode> event) {
    during.run();
    if (failWhen.test(event))
      throw new IllegalStateException(
          "handler refused " + event.identity() + " " + event.type().wire());
    events.add(event);
  }

  void failWhen(Predicate<ChangeEvent<JsonNode>> p) {
    this.failWhen = p;
  }

  void during(Runnable r) {
    this.during = r;
  }

  synchronized List<ChangeEvent<JsonNode>> events() {
    return List.copyOf(events);
  }

  synchronized List<String> ids() {
    return events.stream().map(ChangeEvent::id).toList();
  }

  /** "identity:type" per delivered event, in delivery order. */
  synchronized List<String> changes() {
    return events.stream().map(e -> e.identity() + ":" + e.type().wire()).toList();
  }

  synchronized List<String> of(String identity) {
    return events.stream()
        .filter(e -> e.identity().equals(identity))
        .map(e -> e.type().wire() + "@" + e.version())
        .toList();
  }

  synchronized long count(EventType type) {
    return events.stream().filter(e -> e.type() == type).count();
  }

  synchronized void clear() {
    events.clear();
  }
}
