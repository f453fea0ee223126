/**
 * The store SPI: what a state store implements ({@link io.watukuy.spi.StateStore}, and {@link
 * io.watukuy.spi.RateBudgetStore} for budgets shared across instances) and the rows it keeps. An
 * application names a store when it builds the engine and otherwise never calls it; a store author
 * implements it and certifies the implementation with {@code StoreContractTest} from
 * watukuy-testing (docs/stores.md).
 */
@NullMarked
package io.watukuy.spi;

import org.jspecify.annotations.NullMarked;
