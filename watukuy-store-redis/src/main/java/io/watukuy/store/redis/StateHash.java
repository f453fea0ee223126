package io.watukuy.store.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.StoreException;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StateCodec;
import io.watukuy.spi.StatePatch;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * How a key's {@link PollerState} lives in its {@code state} hash, one field per state field:
 * {@code cursors} (a JSON object, keys sorted), {@code schedule} ({@link StateCodec} JSON), {@code
 * schemaVersion} and {@code lastSequence} (decimal), {@code createdAt} and {@code updatedAt}
 * (ISO-8601, full precision), and {@code indexed} once the key is listed. A {@link StatePatch}
 * travels to the scripts as field, value pairs; a key written for the first time starts from the
 * core's defaults.
 */
final class StateHash {
  private StateHash() {}

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<Map<String, String>> CURSORS = new TypeReference<>() {};

  /** State fields a new key starts with, as field, value pairs: the defaults of the core. */
  private static final List<String> DEFAULTS = fields(defaultPatch());

  private static StatePatch defaultPatch() {
    PollerState initial = PollerState.create(StatePatch.NONE, Instant.EPOCH);
    return new StatePatch(
        initial.cursors(), initial.schedule(), initial.schemaVersion(), initial.lastSequence());
  }

  /** The non-null fields of {@code patch} as field, value pairs of the state hash. */
  static List<String> fields(StatePatch patch) {
    List<String> out = new ArrayList<>(8);
    Map<String, String> cursors = patch.cursors();
    if (cursors != null) {
      out.add("cursors");
      try {
        out.add(JSON.writeValueAsString(new TreeMap<>(cursors)));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("a map of strings is always JSON", e);
      }
    }
    ScheduleState schedule = patch.schedule();
    if (schedule != null) {
      out.add("schedule");
      out.add(StateCodec.scheduleToJson(schedule));
    }
    Integer schemaVersion = patch.schemaVersion();
    if (schemaVersion != null) {
      out.add("schemaVersion");
      out.add(Integer.toString(schemaVersion));
    }
    Long lastSequence = patch.lastSequence();
    if (lastSequence != null) {
      out.add("lastSequence");
      out.add(Long.toString(lastSequence));
    }
    return out;
  }

  /**
   * Appends the state arguments every state-writing script reads ({@code stateArgs()} in {@link
   * Scripts#PRELUDE}): the time, the count and pairs of the defaults, the count and pairs of the
   * patch.
   */
  static void addArgs(List<String> args, StatePatch patch, Instant now) {
    args.add(now.toString());
    args.add(Integer.toString(DEFAULTS.size()));
    args.addAll(DEFAULTS);
    List<String> fields = fields(patch);
    args.add(Integer.toString(fields.size()));
    args.addAll(fields);
  }

  /**
   * The state a stored hash holds.
   *
   * @param f the hash's fields
   * @throws StoreException when a field is not readable
   */
  static PollerState decode(PollerKey key, Map<String, String> f) {
    try {
      String cursors = f.get("cursors");
      String schedule = f.get("schedule");
      String schemaVersion = f.get("schemaVersion");
      String lastSequence = f.get("lastSequence");
      return new PollerState(
          cursors == null ? Map.of() : JSON.readValue(cursors, CURSORS),
          schedule == null ? ScheduleState.initial(0) : StateCodec.scheduleFromJson(schedule),
          schemaVersion == null ? 1 : Integer.parseInt(schemaVersion),
          lastSequence == null ? 0 : Long.parseLong(lastSequence),
          Instant.parse(Objects.requireNonNull(f.get("createdAt"), "createdAt")),
          Instant.parse(Objects.requireNonNull(f.get("updatedAt"), "updatedAt")));
    } catch (JsonProcessingException | RuntimeException e) {
      throw new StoreException(
          "redis store: stored poller state of " + key + " is not readable: " + e.getMessage(), e);
    }
  }
}
