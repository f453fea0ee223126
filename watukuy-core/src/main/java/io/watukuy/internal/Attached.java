package io.watukuy.internal;

import io.watukuy.BatchHandler;
import io.watukuy.Handler;
import org.jspecify.annotations.Nullable;

/**
 * A handler attached to a poller, with the poller's item type for converting event data: either a
 * {@link Handler} (one event per call) or a {@link BatchHandler}, never both.
 */
record Attached(
    @Nullable Handler<Object> handler, @Nullable BatchHandler<Object> batch, Class<Object> type) {}
