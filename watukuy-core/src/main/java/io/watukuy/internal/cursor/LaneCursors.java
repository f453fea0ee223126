package io.watukuy.internal.cursor;

import io.watukuy.CursorStrategy;
import io.watukuy.CustomCursor;
import io.watukuy.PageCursor;
import io.watukuy.SnapshotDiffCursor;
import io.watukuy.TimestampCursor;
import io.watukuy.TokenCursor;

/** Picks the engine-side driver of a strategy. */
public final class LaneCursors {
  private LaneCursors() {}

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static LaneCursor<Object> of(String poller, CursorStrategy<?> strategy) {
    LaneCursor<?> lane;
    if (strategy instanceof TimestampCursor t) lane = new TimestampLane(poller, t);
    else if (strategy instanceof TokenCursor t) lane = new TokenLane(t);
    else if (strategy instanceof PageCursor p) lane = new PageLane(poller, p.initial());
    else if (strategy instanceof SnapshotDiffCursor) lane = new SnapshotLane();
    else if (strategy instanceof CustomCursor c) lane = new CustomLane<>(poller, c);
    else throw new IllegalArgumentException("unknown strategy " + strategy);
    return (LaneCursor<Object>) lane;
  }
}
