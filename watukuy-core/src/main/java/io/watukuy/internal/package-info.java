/**
 * The engine: the run of a key ({@code KeyRunner} and its stages {@code PageLoop}, {@code
 * PageCommit}, {@code FetchScope}), the daemon ({@code Daemon}), the operations ({@code
 * KeyOperations}), delivery ({@code Dispatcher}), leases ({@code LeaseKeeper}), the envelope and
 * the schedule. Not API: may change in any release.
 */
@NullMarked
package io.watukuy.internal;

import org.jspecify.annotations.NullMarked;
