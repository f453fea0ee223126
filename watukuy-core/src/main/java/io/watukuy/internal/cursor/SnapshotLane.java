package io.watukuy.internal.cursor;

import io.watukuy.ConfigException;
import io.watukuy.Page;
import io.watukuy.internal.ItemView;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** snapshotDiff: no cursor, every cycle lists everything by {@code ctx.page()}. */
final class SnapshotLane implements LaneCursor<Void> {
  private final String poller;

  SnapshotLane(String poller) {
    this.poller = poller;
  }

  @Override
  public @Nullable Void initial() {
    return null;
  }

  @Override
  public @Nullable Void decode(@Nullable String json) {
    return null;
  }

  @Override
  public @Nullable Void fromRaw(@Nullable String raw) {
    if (raw != null)
      throw new ConfigException(
          "poller "
              + poller
              + ": cursor snapshotDiff has no cursor to set (to must be null), but was '"
              + raw
              + "'");
    return null;
  }

  @Override
  public @Nullable String encode(@Nullable Void c) {
    return null;
  }

  @Override
  public Step<Void> advance(
      @Nullable Void stored, @Nullable Void sent, Page<?> page, List<ItemView> items, Instant now) {
    boolean more = Boolean.TRUE.equals(page.hasMore());
    return new Step<>(null, !more, items, !more);
  }

  @Override
  public boolean fullScan() {
    return true;
  }

  @Override
  public Stall stall(
      @Nullable Void before, @Nullable Void after, List<ItemView> page, Stall.Mode mode) {
    return Stall.byPage(mode);
  }
}
