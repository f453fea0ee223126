/**
 * The in-memory stores: {@link io.watukuy.store.memory.MemoryStore}, the reference implementation
 * of the store SPI (state lives and dies with the process), and {@link
 * io.watukuy.store.memory.MemoryBudgetStore}, the default home of budgets' token buckets.
 */
@NullMarked
package io.watukuy.store.memory;

import org.jspecify.annotations.NullMarked;
