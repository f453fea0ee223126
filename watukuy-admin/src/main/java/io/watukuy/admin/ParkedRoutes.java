package io.watukuy.admin;

import static io.watukuy.admin.Exchanges.JSON;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.ConfigException;
import io.watukuy.Inspection;
import io.watukuy.KeyInspection;
import io.watukuy.ParkedEvent;
import io.watukuy.PollerKey;
import io.watukuy.Watukuy;
import io.watukuy.spi.ParkedRow;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * {@code GET /admin/parked} and {@code POST /admin/parked/retry|discard} (docs/operations.md,
 * "Admin HTTP"). The body of a change is one JSON object:
 *
 * <pre>{@code
 * {"poller": "orders", "partition": "eu", "ids": ["12", "invalid-0123456789abcdef"]}
 * {"poller": "orders", "all": true}
 * }</pre>
 *
 * <p>{@code partition} is optional (every key of the poller); exactly one of {@code ids} (1 to
 * {@value #MAX_IDS}) and {@code "all": true}.
 */
final class ParkedRoutes {
  static final int DEFAULT_LIMIT = 100;
  static final int MAX_LIMIT = 1000;
  static final int MAX_IDS = 1000;

  private final Watukuy engine;

  ParkedRoutes(Watukuy engine) {
    this.engine = engine;
  }

  /**
   * The parked rows, oldest first per key: {@code {"total": n, "limit": l, "parked": [...]}}, the
   * first {@code limit} of {@code total}.
   */
  String list(Map<String, String> query) {
    String poller = query.get("poller");
    String partition = query.get("partition");
    int limit = limit(query.get("limit"));
    List<ParkedEvent> rows = poller == null ? engine.parked().list() : engine.parked().list(poller);
    ObjectNode n = JSON.createObjectNode();
    ArrayNode out = JSON.createArrayNode();
    int total = 0;
    for (ParkedEvent e : rows) {
      if (partition != null && !partition.equals(e.key().partition())) continue;
      total++;
      if (out.size() < limit) out.add(row(e));
    }
    n.put("total", total);
    n.put("limit", limit);
    n.set("parked", out);
    return n.toString();
  }

  private static int limit(@Nullable String text) {
    if (text == null) return DEFAULT_LIMIT;
    try {
      int l = Integer.parseInt(text);
      if (l >= 1 && l <= MAX_LIMIT) return l;
    } catch (NumberFormatException e) {
      // the message below says what is expected
    }
    throw new ConfigException("limit '" + text + "' is not a whole number from 1 to " + MAX_LIMIT);
  }

  private static ObjectNode row(ParkedEvent e) {
    ParkedRow row = e.row();
    ObjectNode n = JSON.createObjectNode();
    n.put("poller", e.key().poller());
    n.put("partition", e.key().partition());
    n.put("id", row.id());
    n.put("kind", row.kind().wire());
    n.put("eventId", row.eventId());
    n.put("orderingKey", row.orderingKey());
    n.put("attempts", row.attempts());
    n.put("parkedAt", row.parkedAt().toString());
    n.put("error", row.errorMessage());
    return n;
  }

  /** The fields a retry or discard body may have. */
  static final List<String> BODY_FIELDS = List.of("poller", "partition", "ids", "all");

  /** Retries or discards parked rows: {@code {"poller": p, "changed": n}}. */
  String change(boolean retry, byte[] body) throws IOException {
    JsonNode req;
    try {
      // Trailing text after the object is refused too: a body cut or glued together is a mistake.
      req =
          JSON.reader()
              .with(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
              .readTree(body);
    } catch (JsonProcessingException e) {
      throw new ConfigException("the body is not JSON: " + e.getOriginalMessage());
    }
    if (req == null || !req.isObject())
      throw new ConfigException(
          "the body must be a JSON object such as {\"poller\": \"orders\", \"ids\": [\"12\"]}");
    // A misspelt field must not widen a discard: "partiton" would otherwise mean every partition.
    for (java.util.Iterator<String> names = req.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!BODY_FIELDS.contains(name))
        throw new ConfigException(
            "unknown field '" + name + "' in the body; the fields are " + BODY_FIELDS);
    }
    String poller = text(req, "poller", true);
    String partition = text(req, "partition", false);
    boolean all = req.path("all").asBoolean(false);
    if (req.has("all") && !req.get("all").isBoolean())
      throw new ConfigException("all must be true or false, but was " + req.get("all"));
    Set<String> ids = ids(req.get("ids"));
    if (all == !ids.isEmpty())
      throw new ConfigException("give exactly one of ids (a non-empty array) and \"all\": true");
    // Listing first names an unknown poller (400) and finds the keys and ids to act on.
    List<ParkedEvent> rows = engine.parked().list(poller);
    if (partition != null) checkPartition(poller, partition);
    Map<PollerKey, List<String>> byKey = new LinkedHashMap<>();
    for (ParkedEvent e : rows) {
      if (partition != null && !partition.equals(e.key().partition())) continue;
      if (all || ids.contains(e.row().id()))
        byKey.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e.row().id());
    }
    int changed = 0;
    for (Map.Entry<PollerKey, List<String>> k : byKey.entrySet())
      changed +=
          retry
              ? engine.parked().retry(k.getKey(), k.getValue())
              : engine.parked().discard(k.getKey(), k.getValue());
    ObjectNode n = JSON.createObjectNode();
    n.put("poller", poller);
    if (partition == null) n.putNull("partition");
    else n.put("partition", partition);
    n.put("action", retry ? "retry" : "discard");
    n.put("changed", changed);
    return n.toString();
  }

  private void checkPartition(String poller, String partition) {
    Inspection inspection = engine.inspect();
    List<String> known = new ArrayList<>();
    for (KeyInspection k : inspection.pollers())
      if (k.poller().equals(poller)) known.add(k.partition());
    if (!known.contains(partition))
      throw new ConfigException(
          "poller " + poller + " has no partition '" + partition + "' (known: " + known + ")");
  }

  private static @Nullable String text(JsonNode req, String field, boolean required) {
    JsonNode v = req.get(field);
    if (v == null || v.isNull()) {
      if (required) throw new ConfigException("the body has no \"" + field + "\"");
      return null;
    }
    if (!v.isTextual()) throw new ConfigException(field + " must be a string, but was " + v);
    return v.textValue();
  }

  private static Set<String> ids(@Nullable JsonNode v) {
    Set<String> ids = new LinkedHashSet<>();
    if (v == null || v.isNull()) return ids;
    if (!v.isArray()) throw new ConfigException("ids must be an array of strings, but was " + v);
    if (v.size() > MAX_IDS)
      throw new ConfigException(
          "ids holds " + v.size() + " ids; at most " + MAX_IDS + " per request (or \"all\": true)");
    for (JsonNode id : v) {
      if (!id.isTextual()) throw new ConfigException("ids must hold strings, but held " + id);
      ids.add(id.textValue());
    }
    return ids;
  }
}
