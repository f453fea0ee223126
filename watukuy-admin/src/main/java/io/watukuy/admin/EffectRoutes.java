package io.watukuy.admin;

import static io.watukuy.admin.Exchanges.JSON;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.ConfigException;
import io.watukuy.PollerKey;
import io.watukuy.effects.EffectStatus;
import io.watukuy.effects.Effects;
import io.watukuy.effects.InFlightLane;
import io.watukuy.effects.SourceStatus;
import io.watukuy.effects.StuckLane;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.JournalEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The effects endpoints (docs/effects.md, "Admin HTTP"; docs/operations.md, "Endpoints"): the
 * listing, one effect with its stuck lanes, one invocation's journaled calls, and skip. Loaded only
 * when the server was given an {@link Effects} runtime, so the server runs without the effects
 * module on the module path.
 */
final class EffectRoutes {
  /** An answer: a status and a JSON body. */
  record Reply(int status, String body) {
    static Reply error(int status, String message) {
      ObjectNode n = JSON.createObjectNode();
      n.put("error", message);
      return new Reply(status, n.toString());
    }
  }

  /**
   * What a position without an invocation row is: a position waits in its lane behind an earlier
   * one without a row until its turn, and one passed by the watermark may have been swept.
   */
  static final String NO_INVOCATION =
      "has no invocation yet (it waits in its lane behind an earlier position, is not read yet, or"
          + " the watermark passed it)";

  static final int DEFAULT_CALLS = 100;
  static final int MAX_CALLS = 1000;

  final Effects effects;

  EffectRoutes(Effects effects) {
    this.effects = effects;
  }

  /** {@code GET /admin/effects}: every effect, never its stuck lanes. */
  Reply list() {
    ArrayNode out = JSON.createArrayNode();
    for (EffectStatus st : effects.statuses()) out.add(summary(st));
    ObjectNode n = JSON.createObjectNode();
    n.set("effects", out);
    return new Reply(200, n.toString());
  }

  /** {@code GET /admin/effects/{name}}: the listing's fields and what a wedge needs. */
  Reply show(String name) {
    if (!effects.names().contains(name)) return unknown(name);
    EffectStatus st = effects.status(name);
    ObjectNode n = summary(st);
    ArrayNode sources = (ArrayNode) n.get("sources");
    int wedged = 0;
    List<StuckLane> stuck = new ArrayList<>();
    List<PollerKey> stuckKeys = new ArrayList<>();
    SourceStatus pinning = null;
    String lastError = null;
    for (int i = 0; i < st.sources().size(); i++) {
      SourceStatus s = st.sources().get(i);
      ObjectNode src = (ObjectNode) sources.get(i);
      src.put("wedged_lanes", s.wedgedLanes());
      src.put("pinning_key", s.pinningKey());
      putLong(src, "pinning_position", s.pinningPosition());
      src.put("blocked", s.blocked());
      src.put("last_error", s.lastError());
      wedged += s.wedgedLanes();
      for (StuckLane l : s.stuckLanes()) {
        stuck.add(l);
        stuckKeys.add(s.source());
      }
      if (lastError == null && s.lastError() != null) lastError = s.lastError();
      // The effect's position is its lowest watermark: the source holding it holds the effect.
      if (s.pinningPosition() != null && (pinning == null || s.position() < pinning.position()))
        pinning = s;
    }
    ArrayNode lanes = JSON.createArrayNode();
    for (int i = 0; i < stuck.size() && lanes.size() < SourceStatus.MAX_STUCK_LANES; i++) {
      StuckLane l = stuck.get(i);
      ObjectNode e = JSON.createObjectNode();
      e.put("lane", l.lane());
      e.put("partition", stuckKeys.get(i).partition());
      e.put("position", l.position());
      e.put("attempt", l.attempt());
      e.put("error", l.error());
      e.put("retry_in_ms", l.retryInMs());
      // Its retry attempt runs: the dashboard shows it running, with no action to offer.
      putLong(e, "running_ms", l.runningMs());
      lanes.add(e);
    }
    n.put("wedged_lanes", wedged);
    n.set("stuck_lanes", lanes);
    n.set("in_flight_lanes", inFlightLanes(st));
    n.put("pinning_key", pinning == null ? null : pinning.pinningKey());
    putLong(n, "pinning_position", pinning == null ? null : pinning.pinningPosition());
    if (lastError == null && pinning != null) lastError = pinningError(pinning);
    n.put("last_error", lastError);
    return new Reply(200, n.toString());
  }

  /**
   * The effect's {@code in_flight_lanes} (docs/effects.md, "Admin HTTP"): the invocations running
   * for at least {@link InFlightLane#THRESHOLD}, at most {@link InFlightLane#MAX} over every
   * source, each {@code lane, partition, position, attempt, running_ms, error}.
   */
  private static ArrayNode inFlightLanes(EffectStatus st) {
    ArrayNode lanes = JSON.createArrayNode();
    for (SourceStatus s : st.sources())
      for (InFlightLane l : s.inFlightLanes()) {
        if (lanes.size() >= InFlightLane.MAX) return lanes;
        ObjectNode e = lanes.addObject();
        e.put("lane", l.lane());
        e.put("partition", s.source().partition());
        e.put("position", l.position());
        e.put("attempt", l.attempt());
        e.put("running_ms", l.runningMs());
        e.put("error", l.error());
      }
    return lanes;
  }

  /**
   * {@code GET /admin/effects/{name}/invocations/{position}}: the row and its journaled calls,
   * paged, each by label, ordinal and time only: a recorded result may hold a person's data, and a
   * sealed one must stay sealed, so no result leaves the server.
   */
  Reply invocation(String name, String positionText, Map<String, String> query) {
    if (!effects.names().contains(name)) return unknown(name);
    long position = position(positionText);
    PollerKey source = source(name, query.get("partition"));
    int offset = number("offset", query.get("offset"), 0, 0, Integer.MAX_VALUE);
    int limit = number("limit", query.get("limit"), DEFAULT_CALLS, 1, MAX_CALLS);
    Optional<InvocationRow> found =
        source == null ? Optional.empty() : effects.invocation(name, source, position);
    if (found.isEmpty())
      return Reply.error(
          404,
          "effect "
              + name
              + " has no invocation at position "
              + position
              + where(source)
              + " (never read, or removed by the journal retention)");
    InvocationRow row = found.get();
    // One entry more than the page tells whether another page follows.
    List<JournalEntry> calls = effects.journal(name, row.source(), position, offset, limit + 1);
    ObjectNode n = positionNode(name, row.source(), position);
    n.put("lane", row.lane());
    n.put("event_type", row.eventType());
    n.put("status", row.status().name().toLowerCase(java.util.Locale.ROOT));
    n.put("attempt", row.attempt());
    n.put("error", row.error());
    putInstant(n, "retry_at", row.retryAt());
    n.put("skip_requested", row.skipRequested());
    n.put("version", row.version());
    putInstant(n, "started_at", row.startedAt());
    putInstant(n, "updated_at", row.updatedAt());
    n.put("offset", offset);
    n.put("limit", limit);
    n.put("more", calls.size() > limit);
    ArrayNode out = JSON.createArrayNode();
    for (JournalEntry e : calls.subList(0, Math.min(limit, calls.size()))) {
      ObjectNode c = JSON.createObjectNode();
      c.put("ordinal", e.ordinal());
      c.put("label", e.label());
      putInstant(c, "created_at", e.createdAt());
      c.put("sealed", e.subject() != null);
      out.add(c);
    }
    n.set("calls", out);
    return new Reply(200, n.toString());
  }

  /**
   * {@code POST /admin/effects/{name}/skip/{position}}: records a skip of a failed position; 409
   * naming the position's status when it has not failed.
   */
  Reply skip(String name, String positionText, Map<String, String> query) {
    if (!effects.names().contains(name)) return unknown(name);
    long position = position(positionText);
    PollerKey source = source(name, query.get("partition"));
    if (source != null && effects.skip(name, source, position)) {
      ObjectNode n = positionNode(name, source, position);
      n.put("action", "skip");
      n.put("requested", true);
      return new Reply(200, n.toString());
    }
    Optional<InvocationRow> row =
        source == null ? Optional.empty() : effects.invocation(name, source, position);
    String why = row.isEmpty() ? NO_INVOCATION : "is " + describe(row.get().status());
    return notFailed(name, position, source, why, "only a failed position can be skipped");
  }

  /**
   * The 409 refusing an operator's command on one position that is not failed (docs/effects.md,
   * "Admin HTTP"): names the effect, the position, its source key and what the position is.
   *
   * @param source the position's source key, or null when the effect has none to name
   * @param is what the position is, as in {@code is running}
   * @param only what the command takes, as in {@code only a failed position can be skipped}
   */
  static Reply notFailed(
      String name, long position, @Nullable PollerKey source, String is, String only) {
    return Reply.error(
        409, "effect " + name + ": position " + position + where(source) + " " + is + "; " + only);
  }

  /**
   * The object that names one position of an effect, {@code effect}, {@code poller}, {@code
   * partition} and {@code position} in that order, which the invocation and skip replies start
   * with.
   */
  static ObjectNode positionNode(String name, PollerKey source, long position) {
    ObjectNode n = JSON.createObjectNode();
    n.put("effect", name);
    n.put("poller", source.poller());
    n.put("partition", source.partition());
    n.put("position", position);
    return n;
  }

  private static String describe(InvocationStatus status) {
    return switch (status) {
      case RUNNING -> "running";
      case FAILED -> "failed but no longer skippable"; // raced with its retry succeeding
      case DONE -> "done";
      case TERMINAL -> "completed by a terminal failure";
      case SKIPPED -> "already skipped";
    };
  }

  private ObjectNode summary(EffectStatus st) {
    ObjectNode n = JSON.createObjectNode();
    n.put("name", st.effect());
    n.put("state", st.state().wire());
    n.put("running", st.running());
    n.put("position", st.position());
    n.put("lag", st.lag());
    ArrayNode sources = JSON.createArrayNode();
    for (SourceStatus s : st.sources()) {
      ObjectNode src = JSON.createObjectNode();
      src.put("poller", s.source().poller());
      src.put("partition", s.source().partition());
      src.put("position", s.position());
      src.put("head", s.head());
      src.put("lag", s.lag());
      sources.add(src);
    }
    n.set("sources", sources);
    n.put("terminal_skips", st.terminalSkips());
    n.put("latest_collapsed", st.latestCollapsed());
    n.put("last_terminal_error", st.lastTerminalError());
    n.put("quarantine_reason", st.quarantineReason());
    return n;
  }

  /** The error of the lane holding the effect down: what an operator reads first. */
  private static @Nullable String pinningError(SourceStatus s) {
    for (StuckLane l : s.stuckLanes())
      if (s.pinningPosition() != null && l.position() == s.pinningPosition()) return l.error();
    return null;
  }

  /**
   * The source key a position belongs to: the one with {@code partition}, or the only one the
   * effect reads. Null when the effect has read nothing yet (no position of it can have failed).
   */
  @Nullable PollerKey source(String name, @Nullable String partition) {
    List<PollerKey> keys = new ArrayList<>();
    for (SourceStatus s : effects.status(name).sources()) keys.add(s.source());
    if (keys.isEmpty()) return null;
    List<String> partitions = keys.stream().map(k -> "'" + k.partition() + "'").toList();
    if (partition == null) {
      if (keys.size() == 1) return keys.get(0);
      throw new ConfigException(
          "effect "
              + name
              + " reads "
              + keys.size()
              + " partitions; name one with ?partition= (known: "
              + partitions
              + ")");
    }
    for (PollerKey k : keys) if (k.partition().equals(partition)) return k;
    throw new ConfigException(
        "effect " + name + " has no partition '" + partition + "' (known: " + partitions + ")");
  }

  static String where(@Nullable PollerKey source) {
    if (source == null) return "";
    return " of "
        + source.poller()
        + (source.partition().isEmpty() ? "" : "/" + source.partition());
  }

  Reply unknown(String name) {
    return Reply.error(404, "no effect named '" + name + "'; effects here: " + effects.names());
  }

  static long position(String text) {
    try {
      long p = Long.parseLong(text);
      if (p >= 1) return p;
    } catch (NumberFormatException e) {
      // the message below says what is expected
    }
    throw new ConfigException(
        "position '" + text + "' is not a log position (a whole number >= 1)");
  }

  private static int number(String field, @Nullable String text, int dflt, int min, int max) {
    if (text == null) return dflt;
    try {
      int v = Integer.parseInt(text);
      if (v >= min && v <= max) return v;
    } catch (NumberFormatException e) {
      // the message below says what is expected
    }
    throw new ConfigException(
        field + " '" + text + "' is not a whole number from " + min + " to " + max);
  }

  private static void putLong(ObjectNode n, String field, @Nullable Long v) {
    if (v == null) n.putNull(field);
    else n.put(field, v.longValue());
  }

  private static void putInstant(ObjectNode n, String field, @Nullable Instant v) {
    if (v == null) n.putNull(field);
    else n.put(field, v.toString());
  }
}
