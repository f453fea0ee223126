package io.watukuy;

import io.watukuy.spi.ParkedKind;
import java.util.List;

/**
 * Checks an item before it is diffed. An item with problems is not diffed and produces no event: it
 * is parked as kind {@link ParkedKind#INVALID} with the messages, in the same commit as the rest of
 * its page. Adapters for Jakarta Bean Validation and JSON Schema implement it.
 *
 * <p>Called on the cycle's thread; must not block on I/O.
 *
 * @param <T> the item type
 * @since 0.1
 */
@FunctionalInterface
public interface Validator<T> {
  /**
   * Checks one item. An exception thrown here counts as one problem naming the exception, not as a
   * failed cycle.
   *
   * @param item the item as fetch returned it; never null, never a tombstone
   * @return the problems found, each a message naming the field; empty (or null) when the item is
   *     valid
   */
  List<String> validate(T item);
}
