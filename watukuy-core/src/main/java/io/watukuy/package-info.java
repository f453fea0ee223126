/**
 * The application API of watukuy: declare {@link io.watukuy.Poller pollers}, build an engine with
 * {@link io.watukuy.Watukuy#builder()}, attach {@link io.watukuy.Handler handlers}, and receive
 * {@link io.watukuy.ChangeEvent change events} with the guarantees G1–G10 (docs/guarantees.md).
 *
 * <p>Core has three doors, one per reader: this package for applications, {@link io.watukuy.spi}
 * for store authors, and {@link io.watukuy.store.memory} for the in-memory stores. Everything under
 * {@code io.watukuy.internal} is the engine; the module does not export it.
 */
@NullMarked
package io.watukuy;

import org.jspecify.annotations.NullMarked;
