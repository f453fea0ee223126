package io.watukuy.opentelemetry;

import io.opentelemetry.api.trace.SpanContext;
import io.watukuy.PollerKey;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Which cycle span committed which events, for the links of delivery spans: per key, ranges of
 * outbox sequences (one per commit, {@code WatukuyListener.onCommit}) and the span context of the
 * cycle that wrote them. Bounded: past {@code capacity} commits the oldest is forgotten, and its
 * events' deliveries get no link, as after a restart. A commit whose range overlaps a remembered
 * one (the key's outbox was reset, and its sequences start again) replaces it. Thread-safe.
 */
final class CommitLinks {
  private record Commit(PollerKey key, long first, long last, SpanContext cycle) {}

  private final int capacity;
  private final Map<PollerKey, NavigableMap<Long, Commit>> byKey = new HashMap<>();
  private final ArrayDeque<Commit> oldestFirst = new ArrayDeque<>();

  CommitLinks(int capacity) {
    this.capacity = capacity;
  }

  /** Remembers that {@code cycle} committed the key's sequences {@code first..last}. */
  synchronized void remember(PollerKey key, long first, long last, SpanContext cycle) {
    NavigableMap<Long, Commit> ranges = byKey.computeIfAbsent(key, k -> new TreeMap<>());
    Map.Entry<Long, Commit> e;
    while ((e = ranges.floorEntry(last)) != null && e.getValue().last >= first) {
      ranges.remove(e.getKey());
      oldestFirst.remove(e.getValue());
    }
    Commit c = new Commit(key, first, last, cycle);
    ranges.put(first, c);
    oldestFirst.addLast(c);
    while (oldestFirst.size() > capacity) forget(oldestFirst.removeFirst());
  }

  /** The span context of the cycle that committed the key's {@code sequence}, or null. */
  synchronized @Nullable SpanContext find(PollerKey key, long sequence) {
    NavigableMap<Long, Commit> ranges = byKey.get(key);
    if (ranges == null) return null;
    Map.Entry<Long, Commit> e = ranges.floorEntry(sequence);
    return e == null || e.getValue().last < sequence ? null : e.getValue().cycle;
  }

  /** How many commits are remembered. */
  synchronized int size() {
    return oldestFirst.size();
  }

  private void forget(Commit c) {
    NavigableMap<Long, Commit> ranges = byKey.get(c.key);
    if (ranges == null) return;
    ranges.remove(c.first, c);
    if (ranges.isEmpty()) byKey.remove(c.key);
  }
}
