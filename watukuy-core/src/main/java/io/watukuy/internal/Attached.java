package io.watukuy.internal;

import io.watukuy.Handler;

/** A handler attached to a poller, with the poller's item type for converting event data. */
record Attached(Handler<Object> handler, Class<Object> type) {}
