/**
 * The public API of watukuy: declare {@link io.watukuy.Poller pollers}, build an engine with {@link
 * io.watukuy.Watukuy#builder()}, attach {@link io.watukuy.Handler handlers}, and receive {@link
 * io.watukuy.ChangeEvent change events} with the guarantees G1–G10. The {@link
 * io.watukuy.spi.StateStore} SPI and its records are here too, with the reference {@link
 * io.watukuy.store.memory.MemoryStore}. Everything under {@code io.watukuy.internal} is the engine
 * and is not API.
 */
@NullMarked
package io.watukuy;

import org.jspecify.annotations.NullMarked;
