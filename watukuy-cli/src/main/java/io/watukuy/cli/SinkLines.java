package io.watukuy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.Inspection;
import io.watukuy.KeyInspection;
import io.watukuy.ScheduleState;
import io.watukuy.cli.CliConfig.PollerSpec;
import io.watukuy.cli.CliConfig.SinkSpec;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The sinks part of {@code inspect} (docs/sinks.md, "Configuration"): each poller's sink, its type
 * and destination as the config writes them, credentials redacted, and its health as the store
 * knows it: the events parked on the poller's keys and the last delivery error. Read from the
 * config only: no sink is made or opened, so no sink secret is needed.
 */
final class SinkLines {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** {@code lastError.name} of an event a sink refused (the engine's, docs/operations.md). */
  static final String DELIVERY_FAILURE = "DeliveryFailure";

  // What names each type's destination, in the order shown; a type not listed shows its type only.
  private static final Map<String, List<String>> DESTINATION_KEYS =
      Map.of(
          "kafka", List.of("topic", "bootstrap"),
          "rabbitmq", List.of("exchange", "routingKey", "uri"),
          "nats", List.of("subject", "stream", "url"),
          "webhook", List.of("url"),
          "table", List.of("table", "url", "sameDatabase"),
          "file", List.of("path"));

  // A user:password@ part's password, and credential-like parameters, in a URL as written.
  private static final Pattern USER_INFO = Pattern.compile("(//[^/@:]*:)[^/@]*@");
  private static final Pattern SECRET_PARAMETER =
      Pattern.compile(
          "(?i)([?&;](?:[^=&;]*(?:password|passwd|pwd|token|secret|key|sig|auth|credential)"
              + "[^=&;]*)=)[^&;]*");

  private SinkLines() {}

  /**
   * One poller's sink and health.
   *
   * @param sink the type and destination, redacted
   * @param parked the events parked on the poller's keys
   * @param lastDeliveryError the latest delivery error of its keys, its message redacted, or null
   */
  record Row(
      String poller,
      String sink,
      long parked,
      ScheduleState.@Nullable LastError lastDeliveryError) {}

  /**
   * The rows, one per poller of the config, in its order.
   *
   * @param redact the command's redaction of the config's secrets
   */
  static List<Row> rows(CliConfig cfg, Inspection in, UnaryOperator<String> redact) {
    List<Row> rows = new ArrayList<>();
    for (PollerSpec p : cfg.pollers()) {
      SinkSpec spec = p.sink() != null ? p.sink() : cfg.sink();
      long parked = 0;
      ScheduleState.LastError last = null;
      for (KeyInspection k : in.pollers()) {
        if (!k.poller().equals(p.name())) continue;
        parked += k.parked();
        ScheduleState.LastError e = k.lastError();
        if (e != null && isDelivery(e) && (last == null || e.at().isAfter(last.at()))) last = e;
      }
      rows.add(
          new Row(
              p.name(),
              redact.apply(describe(spec)),
              parked,
              last == null
                  ? null
                  : new ScheduleState.LastError(
                      last.name(), redact.apply(last.message()), last.at())));
    }
    return rows;
  }

  /** Whether a key's last error is about delivery: a refused event or a destination down. */
  static boolean isDelivery(ScheduleState.LastError e) {
    return e.name().equals(DELIVERY_FAILURE) || e.name().equals("HandlerUnavailableException");
  }

  /** {@code kafka topic=orders bootstrap=127.0.0.1:9092}; {@code stdout} without a section. */
  static String describe(@Nullable SinkSpec section) {
    if (section == null) return "stdout";
    JsonNode node = section.node();
    String type = node.path("type").asText("?");
    StringBuilder b = new StringBuilder(type);
    for (String key : DESTINATION_KEYS.getOrDefault(type, List.of())) {
      JsonNode v = node.path(key);
      if (v.isMissingNode() || v.isNull() || !v.isValueNode()) continue;
      b.append(' ').append(key).append('=').append(url(v.asText()));
    }
    return b.toString();
  }

  /** A value with the password of a URL's user part and credential-like parameters hidden. */
  static String url(String value) {
    return SECRET_PARAMETER
        .matcher(USER_INFO.matcher(value).replaceAll("$1***@"))
        .replaceAll("$1***");
  }

  /**
   * The table under the keys' table: a blank line, a header, a row per poller; the last delivery
   * error with how long ago, as the keys' table says it.
   */
  static void print(PrintStream out, List<Row> rows, Instant now) {
    out.println();
    out.printf("%-20s %-60s %-7s %s%n", "POLLER", "SINK", "PARKED", "LAST DELIVERY ERROR");
    for (Row r : rows)
      out.printf(
          "%-20s %-60s %-7d %s%n",
          r.poller(),
          r.sink(),
          r.parked(),
          r.lastDeliveryError() == null
              ? "-"
              : StatusLines.ago(r.lastDeliveryError().at(), now)
                  + ": "
                  + r.lastDeliveryError().name()
                  + ": "
                  + r.lastDeliveryError().message());
  }

  /**
   * {@code inspect --json} with {@code "sinks": [{poller, sink, parked, lastDeliveryError: null |
   * {name, message, at}}]} added, {@code at} in ISO 8601.
   *
   * @param json the inspection's JSON
   */
  static String withSinks(String json, List<Row> rows) {
    try {
      ObjectNode root = (ObjectNode) JSON.readTree(json);
      ArrayNode sinks = root.putArray("sinks");
      for (Row r : rows) {
        ObjectNode o = sinks.addObject();
        o.put("poller", r.poller());
        o.put("sink", r.sink());
        o.put("parked", r.parked());
        ScheduleState.LastError e = r.lastDeliveryError();
        if (e == null) o.putNull("lastDeliveryError");
        else
          o.putObject("lastDeliveryError")
              .put("name", e.name())
              .put("message", e.message())
              .put("at", e.at().toString());
      }
      return JSON.writeValueAsString(root);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
