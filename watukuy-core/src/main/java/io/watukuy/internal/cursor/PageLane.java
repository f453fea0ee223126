package io.watukuy.internal.cursor;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ConfigException;
import io.watukuy.Page;
import io.watukuy.internal.ItemView;
import io.watukuy.internal.Json;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** The page strategy: page + 1 while hasMore, back to initial when the cycle completes. */
final class PageLane implements LaneCursor<Integer> {
  private final String poller;
  private final int initial;

  PageLane(String poller, int initial) {
    this.poller = poller;
    this.initial = initial;
  }

  @Override
  public Integer initial() {
    return initial;
  }

  @Override
  public Integer decode(@Nullable String json) {
    if (json == null) return initial;
    JsonNode n = Json.tree(json);
    if (n.isTextual()) {
      try {
        return Integer.parseInt(n.textValue().trim());
      } catch (NumberFormatException e) {
        throw new ConfigException(
            "poller " + poller + ": page cursor '" + n.textValue() + "' is not a page number");
      }
    }
    if (!n.canConvertToInt())
      throw new ConfigException(
          "poller " + poller + ": page cursor " + json + " is not a page number");
    return n.intValue();
  }

  @Override
  public Integer fromRaw(@Nullable String raw) {
    if (raw == null) return initial;
    try {
      int page = Integer.parseInt(raw.trim());
      if (page < initial)
        throw new ConfigException(
            "poller " + poller + ": page cursor '" + raw + "' is before the first page " + initial);
      return page;
    } catch (NumberFormatException e) {
      throw new ConfigException(
          "poller " + poller + ": page cursor '" + raw + "' is not a page number");
    }
  }

  @Override
  public @Nullable String toRaw(@Nullable Integer cursor) {
    return cursor == null ? null : cursor.toString();
  }

  @Override
  public boolean ordered() {
    return true;
  }

  @Override
  public boolean reached(@Nullable Integer cursor, @Nullable Integer target) {
    return cursor != null && target != null && cursor >= target;
  }

  @Override
  public @Nullable String encode(@Nullable Integer c) {
    return c == null || c == initial ? null : c.toString();
  }

  @Override
  public Step<Integer> advance(
      @Nullable Integer stored,
      @Nullable Integer sent,
      Page<?> page,
      List<ItemView> items,
      Instant now) {
    int current = sent == null ? initial : sent;
    if (Boolean.TRUE.equals(page.hasMore())) return new Step<>(current + 1, false, items, false);
    return new Step<>(initial, true, items, true);
  }

  @Override
  public Stall stall(
      @Nullable Integer before, @Nullable Integer after, List<ItemView> page, Stall.Mode mode) {
    return Stall.byPage(mode);
  }
}
