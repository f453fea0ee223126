package io.watukuy.internal;

import io.watukuy.Fetcher;
import io.watukuy.Lane;
import io.watukuy.internal.cursor.LaneCursor;
import org.jspecify.annotations.Nullable;

/**
 * What one lane of a run runs: its cursor driver, fetch function, where its cursor is kept, whether
 * it is a full listing (deletes after completion), where it stops, and whether known items are
 * re-emitted. The run ({@link KeyRunner}) decides which lanes are due and builds their specs; the
 * page loop ({@link PageLoop}) and the commit ({@link PageCommit}) only read them.
 *
 * @param cursorKey the key of the lane's cursor in the stored cursors, or null when the lane starts
 *     from its initial cursor every cycle
 * @param target backfill's target cursor, or null
 */
record LaneSpec(
    Lane lane,
    LaneCursor<Object> cursor,
    Fetcher<Object, Object> fetch,
    @Nullable String cursorKey,
    boolean fullScan,
    @Nullable Object target,
    boolean force) {}
