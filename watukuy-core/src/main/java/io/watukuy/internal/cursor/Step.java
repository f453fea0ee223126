package io.watukuy.internal.cursor;

import io.watukuy.internal.ItemView;
import java.util.List;

/**
 * What a lane cursor decides after a page.
 *
 * @param next the cursor to store (and fetch with next, when not done)
 * @param done the lane ends for this cycle
 * @param kept the items to diff (lag may have dropped some)
 * @param completed the listing reached its end (not cut short by lag); full scans may delete
 */
public record Step<C>(C next, boolean done, List<ItemView> kept, boolean completed) {}
