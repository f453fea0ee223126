package io.watukuy.spring.boot;

import com.fasterxml.jackson.core.type.TypeReference;
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
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code watukuy} Actuator endpoint (docs/spring-boot.md, "Endpoint"): {@code GET
 * /actuator/watukuy} is the {@code inspect --json} document, {@code GET /actuator/watukuy/{poller}}
 * one poller's keys and parked events, and {@code POST /actuator/watukuy/{poller}/{action}} an
 * operation: {@code pause}, {@code resume}, {@code trigger}, {@code retry} or {@code discard}
 * (parked events), with an optional JSON body {@code {"partition": "...", "ids": ["..."]}}.
 *
 * <p>Responses are plain maps and lists, so whichever Jackson Boot's Actuator uses writes them; the
 * inspection is turned into one by the core's own Jackson 2 mapping, so its fields are those of the
 * command line's {@code inspect --json}. Parked events are listed without their bodies.
 */
@Endpoint(id = "watukuy")
public final class WatukuyEndpoint {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

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
   * @return {@code poller}, {@code keys} and {@code parked}; null (404) for an unknown poller
   */
  @ReadOperation
  public @Nullable Map<String, Object> poller(@Selector String poller) {
    Inspection all = engine.inspect();
    List<KeyInspection> keys =
        all.pollers().stream().filter(k -> k.key().poller().equals(poller)).toList();
    if (keys.isEmpty()) return null;
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("poller", poller);
    out.put("keys", document(new Inspection(all.at(), keys)).get("pollers"));
    out.put("parked", parked(engine.parked().list(poller)));
    return out;
  }

  /**
   * An operation on a poller, or on one partition of it.
   *
   * @param poller a poller name
   * @param action {@code pause}, {@code resume}, {@code trigger}, {@code retry} or {@code discard}
   * @param partition the partition; null for every key of the poller
   * @param ids parked event ids for {@code retry} and {@code discard}; null for all of the key's
   * @return {@code poller}, {@code action} and, for parked events, {@code count}
   * @throws InvalidEndpointRequestException (400) for an unknown action, poller or partition,
   *     naming it
   */
  @WriteOperation
  public Map<String, Object> operate(
      @Selector String poller,
      @Selector String action,
      @Nullable String partition,
      @Nullable List<String> ids) {
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
        case "retry", "discard" -> out.put("count", parkedOp(poller, partition, ids, action));
        default ->
            throw new InvalidEndpointRequestException(
                "unknown action '" + action + "': pause, resume, trigger, retry or discard",
                "unknown action");
      }
    } catch (ConfigException | IllegalArgumentException e) {
      throw new InvalidEndpointRequestException(
          poller + " " + action + ": " + e.getMessage(), "rejected");
    }
    return out;
  }

  private int parkedOp(
      String poller, @Nullable String partition, @Nullable List<String> ids, String action) {
    if (engine.inspect().pollers().stream().noneMatch(k -> k.key().poller().equals(poller)))
      throw new ConfigException("unknown poller '" + poller + "'");
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
      m.put("error", r.error());
      m.put("attempts", r.attempts());
      m.put("parkedAt", r.parkedAt().toString());
      out.add(m);
    }
    return out;
  }
}
