package io.watukuy.internal.cursor;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Page;
import io.watukuy.TokenCursor;
import io.watukuy.internal.ItemView;
import io.watukuy.internal.Json;
import io.watukuy.internal.Values;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** The token strategy, including the sync-token and change-feed rules. */
final class TokenLane implements LaneCursor<String> {
  private final TokenCursor config;

  TokenLane(TokenCursor config) {
    this.config = config;
  }

  @Override
  public @Nullable String initial() {
    return config.initial();
  }

  @Override
  public @Nullable String decode(@Nullable String json) {
    if (json == null) return initial();
    JsonNode n = Json.tree(json);
    return n.isNull() ? null : n.asText();
  }

  @Override
  public @Nullable String fromRaw(@Nullable String raw) {
    return raw == null ? initial() : raw;
  }

  @Override
  public @Nullable String encode(@Nullable String c) {
    return c == null ? null : Json.MAPPER.getNodeFactory().textNode(c).toString();
  }

  @Override
  public Step<String> advance(
      @Nullable String stored,
      @Nullable String sent,
      Page<?> page,
      List<ItemView> items,
      Instant now) {
    String token = Values.scalarText(page.cursor());
    if (token == null || token.isEmpty()) {
      // The listing is exhausted: start over next cycle.
      return new Step<>(initial(), true, items, true);
    }
    if (items.isEmpty() && token.equals(sent)) {
      // A change feed answering "nothing new" with the same token: keep it, never loop on it.
      return new Step<>(token, true, items, true);
    }
    if (Boolean.FALSE.equals(page.hasMore())) {
      return new Step<>(token, true, items, true); // sync token: keep it for next time
    }
    return new Step<>(token, false, items, false);
  }

  @Override
  public Stall stall(
      @Nullable String before, @Nullable String after, List<ItemView> page, Stall.Mode mode) {
    if (mode != Stall.Mode.SAME_CURSOR) return Stall.generic(mode);
    return new Stall(
        Stall.TOKEN_NOT_ADVANCING,
        "the API handed back the token it was sent ('"
            + after
            + "') with "
            + page.size()
            + " item(s), so the next request would be the same one; check that response.next"
            + " points at the next page's token (an empty page with the same token is a change"
            + " feed's normal idle answer and ends the cycle)");
  }
}
