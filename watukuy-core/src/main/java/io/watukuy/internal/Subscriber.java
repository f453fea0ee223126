package io.watukuy.internal;

import io.watukuy.ChangeEvent;
import io.watukuy.PollerKey;
import io.watukuy.Subscription;
import io.watukuy.spi.Lease;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.StateStore;
import java.util.ArrayDeque;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/** The pull consumer behind {@link io.watukuy.Watukuy#subscribe}: one slice at a time. */
final class Subscriber<T> implements Subscription<T> {
  private final StateStore store;
  private final Supplier<List<PollerKey>> keys;
  private final Class<T> type;
  private final int slice;
  private final BiFunction<PollerKey, Function<Lease, Void>, Void> withLease;
  private final Runnable onClose;
  private final ArrayDeque<Row> buffer = new ArrayDeque<>();
  private @Nullable Row unacked;
  private boolean closed;

  private record Row(PollerKey key, OutboxRow row) {}

  Subscriber(
      StateStore store,
      Supplier<List<PollerKey>> keys,
      Class<T> type,
      int slice,
      BiFunction<PollerKey, Function<Lease, Void>, Void> withLease,
      Runnable onClose) {
    this.store = store;
    this.keys = keys;
    this.type = type;
    this.slice = slice;
    this.withLease = withLease;
    this.onClose = onClose;
  }

  @Override
  public boolean hasNext() {
    open();
    ackPrevious();
    if (buffer.isEmpty()) load();
    return !buffer.isEmpty();
  }

  @Override
  public ChangeEvent<T> next() {
    if (!hasNext()) throw new NoSuchElementException("no pending event");
    Row r = buffer.poll();
    unacked = r;
    return Envelope.toEvent(r.row(), type);
  }

  private void ackPrevious() {
    Row r = unacked;
    if (r == null) return;
    withLease.apply(
        r.key(),
        lease -> {
          store.ackEvents(r.key(), lease, List.of(r.row().sequence()));
          return null;
        });
    unacked = null;
  }

  /** The next slice: the first key with pending rows, in sequence order. */
  private void load() {
    for (PollerKey key : keys.get()) {
      List<OutboxRow> rows = store.loadPending(key, 0, slice);
      if (!rows.isEmpty()) {
        for (OutboxRow row : rows) buffer.add(new Row(key, row));
        return;
      }
    }
  }

  private void open() {
    if (closed) throw new IllegalStateException("subscription is closed");
  }

  @Override
  public void close() {
    if (closed) return;
    closed = true;
    buffer.clear();
    onClose.run();
  }
}
