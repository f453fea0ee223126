package io.watukuy.internal.cursor;

import com.fasterxml.jackson.databind.JavaType;
import io.watukuy.ConfigException;
import io.watukuy.CustomCursor;
import io.watukuy.Page;
import io.watukuy.internal.ItemView;
import io.watukuy.internal.Json;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** A user's cursor type, advanced by the user's function, stored as JSON by default. */
final class CustomLane<C> implements LaneCursor<C> {
  private final String poller;
  private final CustomCursor<C> config;
  private final JavaType type;

  CustomLane(String poller, CustomCursor<C> config) {
    this.poller = poller;
    this.config = config;
    this.type =
        config.type() != null
            ? config.type()
            : Json.MAPPER.getTypeFactory().constructType(config.initial().getClass());
  }

  @Override
  public C initial() {
    return config.initial();
  }

  @Override
  public C decode(@Nullable String text) {
    if (text == null) return initial();
    try {
      if (config.deserialize() != null) return config.deserialize().apply(text);
      C c = Json.MAPPER.readValue(text, type);
      return c == null ? initial() : c;
    } catch (Exception e) {
      throw new ConfigException(
          "poller " + poller + ": custom cursor '" + text + "' cannot be read: " + e.getMessage(),
          e);
    }
  }

  @Override
  public C fromRaw(@Nullable String raw) {
    return raw == null ? initial() : decode(raw);
  }

  @Override
  public boolean ordered() {
    return config.ordering() != null;
  }

  @Override
  public boolean reached(@Nullable C cursor, @Nullable C target) {
    if (config.ordering() == null) return LaneCursor.super.reached(cursor, target);
    return cursor != null && target != null && config.ordering().compare(cursor, target) >= 0;
  }

  @Override
  public @Nullable String encode(@Nullable C c) {
    if (c == null) return null;
    try {
      return config.serialize() != null
          ? config.serialize().apply(c)
          : Json.MAPPER.writeValueAsString(c);
    } catch (Exception e) {
      throw new ConfigException(
          "poller " + poller + ": custom cursor cannot be written: " + e.getMessage(), e);
    }
  }

  @Override
  public Step<C> advance(
      @Nullable C stored, @Nullable C sent, Page<?> page, List<ItemView> items, Instant now) {
    List<Object> raw = new ArrayList<>(items.size());
    for (ItemView v : items) if (v.valid()) raw.add(v.item());
    CustomCursor.Step<C> s =
        config
            .advance()
            .advance(
                new CustomCursor.Input<>(
                    sent == null ? initial() : sent,
                    List.copyOf(raw),
                    page.cursor(),
                    page.hasMore()));
    if (s == null || s.cursor() == null)
      throw new BadPage(-1, "custom cursor advance returned no cursor");
    return new Step<>(s.cursor(), s.done(), items, s.done());
  }
}
