package io.watukuy.spring.boot;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.watukuy.ConfigException;
import io.watukuy.Inspection;
import io.watukuy.KeyInspection;
import io.watukuy.ParkedEvent;
import io.watukuy.PollerKey;
import io.watukuy.Watukuy;
import io.watukuy.spi.ParkedRow;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;

/**
 * The {@code watukuy} Actuator web endpoint (docs/spring-boot.md, "Endpoint"): {@code GET
 * /actuator/watukuy} is the {@code inspect --json} document, {@code GET /actuator/watukuy/{poller}}
 * one poller's keys and parked events, and {@code POST /actuator/watukuy/{poller}/{action}} an
 * operation: {@code pause}, {@code resume}, {@code trigger}, {@code retry} or {@code discard}
 * (parked events), with an optional JSON body {@code {"partition": "...", "ids": ["..."]}}.
 *
 * <p>Responses are plain maps and lists, so whichever Jackson Boot's Actuator uses writes them; the
 * inspection is turned into one by the core's own Jackson 2 mapping, so its fields are those of the
 * command line's {@code inspect --json}. Parked events are listed without their bodies. A request
 * the endpoint refuses is answered with a 400 or 404 whose body is {@code {"error": "..."}}, naming
 * the action, poller, partition or field that was wrong.
 */
@WebEndpoint(id = WatukuyEndpoint.ID)
public final class WatukuyEndpoint {
  /** The endpoint id, {@code watukuy}: its path is {@code /actuator/watukuy}. */
  public static final String ID = "watukuy";

  /** The fields a POST body may have; anything else is refused before the operation runs. */
  static final List<String> BODY_FIELDS = List.of("partition", "ids");

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};
  private static final List<String> ACTIONS =
      List.of("pause", "resume", "trigger", "retry", "discard");
  private static final List<String> PARKED_ACTIONS = List.of("retry", "discard");

  private final Watukuy engine;

  /**
   * An endpoint over {@code engine}.
   *
   * @param engine the application's engine
   */
  public WatukuyEndpoint(Watukuy engine) {
    this.engine = Objects.requireNonNull(engine, "engine");
  }

  /**
   * Every key's state: cursor, lag, freshness, outbox, parked, last error, health.
   *
   * @return the {@code inspect --json} document as a map
   */
  @ReadOperation
  public Map<String, Object> inspect() {
    return document(engine.inspect());
  }

  /**
   * One poller: its keys' inspection and its parked events (without bodies).
   *
   * @param poller a poller name
   * @return 200 with {@code poller}, {@code keys} and {@code parked}, each parked event with its
   *     {@code reason} ({@link ParkedRow#errorMessage()}, such as {@code "IllegalStateException:
   *     refused"}) and {@code error}, the stored error's JSON text as a string; 404 with {@code
   *     error} naming the unknown poller and the known ones
   */
  @ReadOperation
  public WebEndpointResponse<Map<String, Object>> poller(@Selector String poller) {
    Inspection all = engine.inspect();
    List<KeyInspection> keys =
        all.pollers().stream().filter(k -> k.key().poller().equals(poller)).toList();
    if (keys.isEmpty())
      return error(WebEndpointResponse.STATUS_NOT_FOUND, unknownPoller(poller, all));
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("poller", poller);
    out.put("keys", document(new Inspection(all.at(), keys)).get("pollers"));
    out.put("parked", parked(engine.parked().list(poller)));
    return new WebEndpointResponse<>(out);
  }

  /**
   * An operation on a poller, or on one partition of it.
   *
   * @param poller a poller name
   * @param action {@code pause}, {@code resume}, {@code trigger}, {@code retry} or {@code discard}
   * @param partition the partition; null for every key of the poller
   * @param ids for {@code retry} and {@code discard} only: a JSON array of parked event ids (as the
   *     body's {@code ids} array arrives here, see {@link WatukuyEndpointBody}) or one id; null
   *     (the field absent) for all of the chosen keys' parked events. A body's JSON {@code null}
   *     never reaches here as "all": {@link WatukuyEndpointFields} refuses it first
   * @return 200 with {@code poller}, {@code action} and, for parked events, {@code count}; 400 with
   *     {@code error} naming the unknown action, poller or partition, the malformed {@code ids}, or
   *     the action that takes no {@code ids}
   */
  @WriteOperation
  public WebEndpointResponse<Map<String, Object>> operate(
      @Selector String poller,
      @Selector String action,
      @Nullable String partition,
      @Nullable String ids) {
    if (!ACTIONS.contains(action))
      return badRequest(
          "unknown action '"
              + action
              + "' on poller '"
              + poller
              + "': "
              + String.join(", ", ACTIONS));
    if (ids != null && !PARKED_ACTIONS.contains(action))
      return badRequest(
          action
              + " on poller '"
              + poller
              + "' takes no ids; ids choose parked events, for "
              + String.join(" and ", PARKED_ACTIONS));
    Inspection all = engine.inspect();
    List<String> partitions = new ArrayList<>();
    for (KeyInspection k : all.pollers())
      if (k.key().poller().equals(poller)) partitions.add(k.key().partition());
    if (partitions.isEmpty()) return badRequest(unknownPoller(poller, all));
    if (partition != null && !partitions.contains(partition))
      return badRequest(
          partitions.equals(List.of(""))
              ? "poller '" + poller + "' has no partitions, so no partition '" + partition + "'"
              : "poller '"
                  + poller
                  + "' has no partition '"
                  + partition
                  + "'; its partitions: "
                  + String.join(", ", partitions));
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("poller", poller);
    if (partition != null) out.put("partition", partition);
    out.put("action", action);
    try {
      // Without a partition an operation covers every key of the poller, as the command line's.
      @Nullable PollerKey key = partition == null ? null : PollerKey.of(poller, partition);
      switch (action) {
        case "pause" -> {
          if (key == null) engine.pause(poller);
          else engine.pause(key);
        }
        case "resume" -> {
          if (key == null) engine.resume(poller);
          else engine.resume(key);
        }
        case "trigger" -> {
          if (key == null) engine.trigger(poller);
          else engine.trigger(key);
        }
        default -> out.put("count", parkedOp(poller, partition, idList(ids), action));
      }
    } catch (ConfigException | IllegalArgumentException e) {
      return badRequest(action + " on poller '" + poller + "': " + e.getMessage());
    }
    return new WebEndpointResponse<>(out);
  }

  /**
   * The ids of a request: a JSON array of strings, or one id.
   *
   * @throws IllegalArgumentException naming {@code ids} when the array is not one of strings
   */
  private static @Nullable List<String> idList(@Nullable String ids) {
    if (ids == null || !ids.startsWith("[")) return ids == null ? null : List.of(ids);
    JsonNode array;
    try {
      array = JSON.readTree(ids);
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException(WatukuyEndpointFields.IDS_SHAPE + ", but was " + ids, e);
    }
    List<String> out = new ArrayList<>();
    for (JsonNode id : array) {
      if (!id.isTextual())
        throw new IllegalArgumentException(WatukuyEndpointFields.IDS_SHAPE + ", but held " + id);
      out.add(id.asText());
    }
    return out;
  }

  private int parkedOp(
      String poller, @Nullable String partition, @Nullable List<String> ids, String action) {
    Map<PollerKey, List<String>> chosen = new LinkedHashMap<>();
    for (ParkedEvent p : engine.parked().list(poller)) {
      if (partition != null && !p.key().partition().equals(partition)) continue;
      if (ids != null && !ids.contains(p.row().id())) continue;
      chosen.computeIfAbsent(p.key(), k -> new ArrayList<>()).add(p.row().id());
    }
    int n = 0;
    for (Map.Entry<PollerKey, List<String>> e : chosen.entrySet())
      n +=
          action.equals("retry")
              ? engine.parked().retry(e.getKey(), e.getValue())
              : engine.parked().discard(e.getKey(), e.getValue());
    return n;
  }

  private static String unknownPoller(String poller, Inspection all) {
    List<String> known =
        all.pollers().stream().map(k -> k.key().poller()).distinct().sorted().toList();
    return "unknown poller '" + poller + "'; the pollers: " + String.join(", ", known);
  }

  /**
   * A refusal with a body naming what was wrong.
   *
   * @param message what was wrong, naming the action, poller, partition or field
   * @return a 400 whose body is {@code {"error": message}}
   */
  static WebEndpointResponse<Map<String, Object>> badRequest(String message) {
    return error(WebEndpointResponse.STATUS_BAD_REQUEST, message);
  }

  private static WebEndpointResponse<Map<String, Object>> error(int status, String message) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error", message);
    return new WebEndpointResponse<>(body, status);
  }

  private static Map<String, Object> document(Inspection inspection) {
    try {
      return JSON.readValue(inspection.toJson(), MAP);
    } catch (java.io.IOException e) {
      throw new IllegalStateException("the inspection's own JSON did not read back", e);
    }
  }

  private static List<Map<String, Object>> parked(List<ParkedEvent> events) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (ParkedEvent p : events) {
      ParkedRow r = p.row();
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("partition", p.key().partition());
      m.put("id", r.id());
      m.put("kind", r.kind().toString());
      m.put("sequence", r.sequence());
      m.put("eventId", r.eventId());
      m.put("orderingKey", r.orderingKey());
      // The stored error is JSON text; "reason" is its one-line reading, "error" the text itself.
      m.put("reason", r.errorMessage());
      m.put("error", r.error());
      m.put("attempts", r.attempts());
      m.put("parkedAt", r.parkedAt().toString());
      out.add(m);
    }
    return out;
  }
}
