package io.watukuy.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.Page;
import io.watukuy.PollerKey;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StateStore;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Small builders for JSON items and pages, and a view of a key's stored live cursor. */
final class Items {
  static final ObjectMapper MAPPER = new ObjectMapper();

  private Items() {}

  /** A JSON object from alternating names and values; a null value is left out. */
  static ObjectNode item(Object... namesAndValues) {
    if (namesAndValues.length % 2 != 0)
      throw new IllegalArgumentException("names and values must pair up");
    ObjectNode n = MAPPER.createObjectNode();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      Object value = namesAndValues[i + 1];
      if (value != null) n.set((String) namesAndValues[i], MAPPER.valueToTree(value));
    }
    return n;
  }

  static Page<JsonNode> page(JsonNode... items) {
    return Page.of(List.of(items));
  }

  /** The stored live cursor as JSON, or null when the key stores none. */
  static @Nullable JsonNode liveCursor(StateStore store, PollerKey key) {
    String text =
        store.loadState(key).map(PollerState::cursors).map(c -> c.get("live")).orElse(null);
    if (text == null) return null;
    try {
      return MAPPER.readTree(text);
    } catch (Exception e) {
      throw new IllegalStateException("stored cursor is not JSON: " + text, e);
    }
  }

  /** The stored live cursor text exactly as stored, or null. */
  static @Nullable String liveCursorText(StateStore store, PollerKey key) {
    return store.loadState(key).map(PollerState::cursors).map(c -> c.get("live")).orElse(null);
  }
}
