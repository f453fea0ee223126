/**
 * The engine: the cycle of a key ({@code KeyCycle}), delivery ({@code Dispatcher}), leases ({@code
 * LeaseKeeper}), the envelope and the schedule. Not API: may change in any release.
 */
@NullMarked
package io.watukuy.internal;

import org.jspecify.annotations.NullMarked;
