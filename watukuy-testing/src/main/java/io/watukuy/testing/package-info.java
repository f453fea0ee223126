/**
 * Test support for watukuy users and store authors: deterministic time and randomness for engine
 * tests, and {@link io.watukuy.testing.StoreContractTest}, the contract suite every {@link
 * io.watukuy.spi.StateStore} implementation extends to certify leases, fencing, the atomic commit,
 * the outbox and parked lifecycles, items, validators and the replay log, and {@link
 * io.watukuy.testing.RateBudgetStoreContractTest}, the one every {@link
 * io.watukuy.spi.RateBudgetStore} extends to certify the token-bucket arithmetic of rate budgets.
 * Shipped in {@code src/main} so third-party stores can depend on it with test scope.
 */
@org.jspecify.annotations.NullMarked
package io.watukuy.testing;
