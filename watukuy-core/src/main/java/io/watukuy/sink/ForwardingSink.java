package io.watukuy.sink;

import io.watukuy.ChangeEvent;
import java.util.List;
import java.util.Objects;

/**
 * A sink that hands every call to another sink: a base for a wrapper that watches or counts what
 * passes (events acknowledged, batches timed) and overrides only the method it watches. Every
 * method of {@link Sink}, including {@link #inSequenceOrder()} and {@link #health()}, reaches the
 * wrapped sink unchanged, so the wrapper keeps the wrapped sink's promises (docs/sinks.md); one
 * that overrides {@link #handle} must return what the wrapped sink returned, or throw what it
 * threw.
 *
 * <p>The hand-off of a same-database sink ({@link Sink#handOff()}) belongs to the handler thread,
 * not to the sink object, so a wrapped table sink still writes in the store's transaction.
 *
 * @since 0.2
 */
public abstract class ForwardingSink implements Sink {
  private final Sink delegate;

  /**
   * Wraps {@code delegate}.
   *
   * @param delegate the sink every call goes to
   * @throws NullPointerException if {@code delegate} is null
   */
  protected ForwardingSink(Sink delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /**
   * The wrapped sink.
   *
   * @return the sink every call goes to
   */
  public Sink delegate() {
    return delegate;
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public void open() throws Exception {
    delegate.open();
  }

  @Override
  public Health health() {
    return delegate.health();
  }

  @Override
  public BatchResult handle(List<ChangeEvent<Object>> events) throws Exception {
    return delegate.handle(events);
  }

  @Override
  public boolean inSequenceOrder() {
    return delegate.inSequenceOrder();
  }

  @Override
  public void close() throws Exception {
    delegate.close();
  }

  /** The wrapped sink's name, as {@link #name()}. */
  @Override
  public String toString() {
    return name();
  }
}
