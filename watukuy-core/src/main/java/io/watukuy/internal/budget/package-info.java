/**
 * Rate budgets (docs/guarantees.md, G6; docs/architecture.md, "Lanes"): {@link
 * io.watukuy.internal.budget.Budgets} holds one gate per declared budget; a gate charges the {@link
 * io.watukuy.spi.RateBudgetStore} one token before every request and queues the requests that must
 * wait, live lane first, then round by round among keys, weighted by each poller's weight.
 * Internal: not part of the public API and may change without notice.
 */
@org.jspecify.annotations.NullMarked
package io.watukuy.internal.budget;
