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

  /**
   * Checks what can be checked before the first poll: a timestamp strategy's initial value must
   * parse.
   *
   * @throws io.watukuy.ConfigException naming the poller, the field and the value
   */
  public static void validate(String poller, CursorStrategy<?> strategy) {
    if (strategy instanceof TimestampCursor t && t.initial() != null) {
      new TimestampLane(poller, t).parseCursor(t.initial());
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static LaneCursor<Object> of(String poller, CursorStrategy<?> strategy) {
    LaneCursor<?> lane;
    if (strategy instanceof TimestampCursor t) lane = new TimestampLane(poller, t);
    else if (strategy instanceof TokenCursor t) lane = new TokenLane(t);
    else if (strategy instanceof PageCursor p) lane = new PageLane(poller, p.initial());
    else if (strategy instanceof SnapshotDiffCursor) lane = new SnapshotLane(poller);
    else if (strategy instanceof CustomCursor c) lane = new CustomLane<>(poller, c);
    else throw new IllegalArgumentException("unknown strategy " + strategy);
    return (LaneCursor<Object>) lane;
  }
}
