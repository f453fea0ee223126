package io.watukuy.sink;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.watukuy.ConfigException;
import io.watukuy.PollerKey;
import io.watukuy.internal.Json;
import io.watukuy.spi.StateStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A {@code sink:} section as a {@link SinkProvider} reads it (docs/sinks.md): typed getters whose
 * errors name where the setting is ({@code watukuy.yaml:14: poller orders: sink.topic: ...}).
 * Values are final: the command line has already replaced {@code ${NAME}} and {@code ${file:PATH}}
 * and registered what looks secret for redaction. Immutable.
 *
 * @since 0.2
 */
public final class SinkConfig {
  /** The units {@link #parseDuration} accepts, as its error message lists them. */
  public static final String DURATION_UNITS = "(ms, s, m, h, d)";

  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)");

  private final JsonNode node;
  private final String pointer;
  private final String label;
  private final Path base;
  private final Function<String, String> where;
  private final @Nullable StateStore store;
  private final List<PollerKey> keys;

  private SinkConfig(
      JsonNode node,
      String pointer,
      String label,
      Path base,
      Function<String, String> where,
      @Nullable StateStore store,
      List<PollerKey> keys) {
    this.node = node;
    this.pointer = pointer;
    this.label = label;
    this.base = base;
    this.where = where;
    this.store = store;
    this.keys = keys;
  }

  /**
   * This section with the keys whose events it will receive, so that {@link #destination(String,
   * String, Function)} checks each key's destination name now, when the config is read, rather than
   * at the key's first batch (docs/sinks.md, "Configuration").
   *
   * @param keys each poller that uses the section with each of its partitions; a poller without
   *     partitions as one key with the empty partition
   * @return a copy that knows the keys
   */
  public SinkConfig withKeys(List<PollerKey> keys) {
    return new SinkConfig(node, pointer, label, base, where, store, List.copyOf(keys));
  }

  /**
   * The keys given with {@link #withKeys}.
   *
   * @return the keys; empty when the caller gave none (a sink built in Java)
   */
  public List<PollerKey> keys() {
    return keys;
  }

  /**
   * This section with the engine's store, for a sink that writes in the store's own database in the
   * store's transaction (the table sink's {@code sameDatabase: true}).
   *
   * @param store the store the engine will use
   * @return a copy that knows the store
   */
  public SinkConfig withStore(StateStore store) {
    return new SinkConfig(node, pointer, label, base, where, store, keys);
  }

  /**
   * The engine's store, when the caller gave it ({@link #withStore}).
   *
   * @return the store, or null
   */
  public @Nullable StateStore store() {
    return store;
  }

  /**
   * A section from a map, for code that builds a sink from settings of its own; errors say {@code
   * sink.KEY: ...}.
   *
   * @param settings the section's keys and values (strings, numbers, booleans, maps, lists)
   * @param base the folder relative paths resolve against
   * @return the section
   */
  public static SinkConfig of(Map<String, ?> settings, Path base) {
    return of(Json.MAPPER.valueToTree(settings), "", "sink", base, pointer -> "");
  }

  /**
   * A section of a config file.
   *
   * @param node the section (a map)
   * @param pointer its JSON Pointer in the file, e.g. {@code /pollers/0/sink}
   * @param label how errors name it, e.g. {@code sink}
   * @param base the folder relative paths resolve against (the config file's)
   * @param where the prefix of an error about the value at a pointer, e.g. {@code watukuy.yaml:14:
   *     poller orders: }
   * @return the section
   */
  public static SinkConfig of(
      JsonNode node, String pointer, String label, Path base, Function<String, String> where) {
    return new SinkConfig(node, pointer, label, base, where, null, List.of());
  }

  /**
   * The section's {@code type}.
   *
   * @return e.g. {@code kafka}
   * @throws ConfigException when missing or not a string
   */
  public String type() {
    return required("type", "the kind of sink");
  }

  /**
   * The section's {@code format}: {@code envelope} (the default) or {@code cloudevents}.
   *
   * @return the format
   * @throws ConfigException for another value
   */
  public EventFormat format() {
    String f = string("format");
    if (f == null) return EventFormat.ENVELOPE;
    try {
      return EventFormat.fromWire(f);
    } catch (IllegalArgumentException e) {
      throw error("format", e.getMessage());
    }
  }

  /**
   * Whether the section has {@code key}.
   *
   * @param key a key
   * @return true when present (even null)
   */
  public boolean has(String key) {
    return node.has(key);
  }

  /**
   * The raw node, for a provider that reads a structure of its own.
   *
   * @return the section's node
   */
  public JsonNode node() {
    return node;
  }

  /**
   * Refuses keys other than {@code allowed} ({@code type} and {@code format} are always allowed).
   *
   * @param allowed the keys the provider reads
   * @throws ConfigException naming the first unknown key and the expected ones
   */
  public void only(String... allowed) {
    if (!node.isObject()) throw error("must be a map");
    Set<String> known = new TreeSet<>(List.of(allowed));
    known.add("type");
    known.add("format");
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!known.contains(key))
        throw error(key, "unknown key (expected one of " + String.join(", ", known) + ")");
    }
  }

  /**
   * A string setting.
   *
   * @param key the key
   * @return the value, or null when absent
   * @throws ConfigException when present but not a string, number or boolean
   */
  public @Nullable String string(String key) {
    JsonNode v = node.path(key);
    if (v.isMissingNode() || v.isNull()) return null;
    if (!v.isValueNode()) throw error(key, "must be a string, but was " + v);
    return v.asText();
  }

  /**
   * A string setting that must be there.
   *
   * @param key the key
   * @param what what it is, for the message: {@code missing (WHAT)}
   * @return the value
   * @throws ConfigException when absent, empty or not a string
   */
  public String required(String key, String what) {
    String v = string(key);
    if (v == null) throw error("missing " + key + " (" + what + ")");
    if (v.isBlank()) throw error(key, "is empty (" + what + ")");
    return v;
  }

  /**
   * A whole-number setting.
   *
   * @param key the key
   * @param fallback the value when absent
   * @param min the smallest allowed
   * @return the value
   * @throws ConfigException when not a whole number of at least {@code min}
   */
  public int integer(String key, int fallback, int min) {
    JsonNode v = node.path(key);
    if (v.isMissingNode()) return fallback;
    if (!v.isIntegralNumber() || !v.canConvertToInt() || v.intValue() < min)
      throw error(key, "'" + v.asText() + "' is not a whole number of at least " + min);
    return v.intValue();
  }

  /**
   * A true/false setting.
   *
   * @param key the key
   * @param fallback the value when absent
   * @return the value
   * @throws ConfigException when not a boolean
   */
  public boolean bool(String key, boolean fallback) {
    JsonNode v = node.path(key);
    if (v.isMissingNode()) return fallback;
    if (!v.isBoolean()) throw error(key, "'" + v.asText() + "' is not true or false");
    return v.booleanValue();
  }

  /**
   * A duration setting: a whole number and a unit, {@code 500ms}, {@code 30s}, {@code 5m}, {@code
   * 1h}, {@code 1d}.
   *
   * @param key the key
   * @param fallback the value when absent
   * @return the value
   * @throws ConfigException when not a duration
   */
  public @Nullable Duration duration(String key, @Nullable Duration fallback) {
    String text = string(key);
    if (text == null) return fallback;
    try {
      return parseDuration(text);
    } catch (IllegalArgumentException e) {
      throw error(key, e.getMessage());
    }
  }

  /**
   * Parses a duration as every setting of the configuration file writes it: a whole number and a
   * unit, {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, {@code 1d}; blanks around it are
   * ignored. The one parser of the command line's durations, in and outside {@code sink:}.
   *
   * @param text the setting's text
   * @return the duration
   * @throws IllegalArgumentException {@code 'TEXT' is not a duration (ms, s, m, h, d)} when it is
   *     not one, or the number does not fit a {@code long}
   * @since 0.3
   */
  public static Duration parseDuration(String text) {
    Matcher m = DURATION.matcher(text.trim());
    if (!m.matches())
      throw new IllegalArgumentException("'" + text + "' is not a duration " + DURATION_UNITS);
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofDays(n);
    };
  }

  /**
   * A duration as a person reads it in a message, the inverse of {@link #parseDuration} where the
   * value is whole: {@code 850ms}, {@code 12.5s} (tenths below a minute, {@code 12s} when whole),
   * {@code 3m20s}, {@code 2h5m}, {@code 1d3h} below ten days, then whole days ({@code 1595d}). Each
   * form is cut, not rounded, so it never overstates a wait. Messages use it rather than {@link
   * Duration#toString()}, whose {@code PT3S} a user has to decode.
   *
   * @param duration the duration; a negative one gets a leading {@code -}
   * @return its text
   * @since 0.3
   */
  public static String formatDuration(Duration duration) {
    long ms = duration.toMillis();
    if (ms < 0) return "-" + formatDuration(duration.negated());
    if (ms < SECOND_MS) return ms + "ms";
    if (ms < MINUTE_MS) {
      long tenths = ms / 100;
      return tenths % 10 == 0
          ? tenths / 10 + "s"
          : String.format(java.util.Locale.ROOT, "%d.%ds", tenths / 10, tenths % 10);
    }
    if (ms < HOUR_MS) return twoUnits(ms / MINUTE_MS, "m", ms % MINUTE_MS / SECOND_MS, "s");
    if (ms < DAY_MS) return twoUnits(ms / HOUR_MS, "h", ms % HOUR_MS / MINUTE_MS, "m");
    long days = ms / DAY_MS;
    return days < 10 ? twoUnits(days, "d", ms % DAY_MS / HOUR_MS, "h") : days + "d";
  }

  private static final long SECOND_MS = 1000;
  private static final long MINUTE_MS = 60 * SECOND_MS;
  private static final long HOUR_MS = 60 * MINUTE_MS;
  private static final long DAY_MS = 24 * HOUR_MS;

  private static String twoUnits(long big, String bigUnit, long small, String smallUnit) {
    return big + bigUnit + (small == 0 ? "" : small + smallUnit);
  }

  /**
   * A map of scalar settings as strings, e.g. a client's {@code properties:}.
   *
   * @param key the key
   * @return the entries in file order; empty when absent
   * @throws ConfigException when not a map, or a value is not a scalar
   */
  public Map<String, String> strings(String key) {
    JsonNode v = node.path(key);
    Map<String, String> out = new LinkedHashMap<>();
    if (v.isMissingNode() || v.isNull()) return out;
    if (!v.isObject()) throw error(key, "must be a map");
    for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!e.getValue().isValueNode() || e.getValue().isNull())
        throw child(key).error(e.getKey(), "must be a string, number or boolean");
      out.put(e.getKey(), e.getValue().asText());
    }
    return out;
  }

  /**
   * A list of strings.
   *
   * @param key the key
   * @return the values; empty when absent
   * @throws ConfigException when not a list of scalars
   */
  public List<String> list(String key) {
    JsonNode v = node.path(key);
    List<String> out = new ArrayList<>();
    if (v.isMissingNode() || v.isNull()) return out;
    if (!v.isArray()) throw error(key, "must be a list");
    for (JsonNode item : v) {
      if (!item.isValueNode() || item.isNull())
        throw error(key, "must be a list of strings, but has " + item);
      out.add(item.asText());
    }
    return out;
  }

  /**
   * A nested section, e.g. {@code columns:}.
   *
   * @param key the key
   * @return the section; its {@link #node()} is missing when absent
   */
  public SinkConfig child(String key) {
    JsonNode v = node.has(key) ? node.get(key) : MissingNode.getInstance();
    return new SinkConfig(
        v, pointer + "/" + escape(key), label + "." + key, base, where, store, keys);
  }

  /**
   * A destination name with {@code {{source}}} and {@code {{partition}}}.
   *
   * @param key the key
   * @param what what it names, for the message when missing
   * @return the destination
   * @throws ConfigException when missing, empty or using another placeholder
   */
  public Destination destination(String key, String what) {
    return destination(key, what, rendered -> null);
  }

  /**
   * A destination name with {@code {{source}}} and {@code {{partition}}}, rendered for each key of
   * {@link #keys()} and checked against the destination's own rule: a name that only a poller's
   * name or partition makes invalid is a config error naming that poller, not a failure at its
   * first batch. {@code {{partition}}} for a poller without partitions is refused too: it would
   * render empty.
   *
   * @param key the key
   * @param what what it names, for the message when missing
   * @param problem the destination's rule: why a rendered name is not valid, or null when it is
   * @return the destination
   * @throws ConfigException when missing, empty, using another placeholder, using {@code
   *     {{partition}}} for a poller without partitions, or rendering a name {@code problem} refuses
   *     for some key
   */
  public Destination destination(
      String key, String what, Function<String, @Nullable String> problem) {
    String text = required(key, what);
    Destination d;
    try {
      d = Destination.parse(text);
    } catch (IllegalArgumentException e) {
      throw error(key, e.getMessage());
    }
    if (d.isConstant()) {
      // The same name for every key, known keys or not.
      String why = problem.apply(text);
      if (why != null) throw error(key, "'" + text + "' is invalid: " + why);
      return d;
    }
    for (PollerKey k : keys) {
      if (k.partition().isEmpty() && d.uses("partition"))
        throw error(
            key,
            "'"
                + text
                + "' uses {{partition}}, but poller "
                + k.poller()
                + " has no partitions (it would render empty): remove it, or give that poller a"
                + " sink: of its own");
      String rendered = d.render(k);
      String why = problem.apply(rendered);
      if (why != null)
        throw error(
            key,
            "'"
                + text
                + "' renders '"
                + rendered
                + "' for "
                + who(k)
                + ", which is invalid: "
                + why);
    }
    return d;
  }

  private static String who(PollerKey k) {
    return "poller " + k.poller() + (k.partition().isEmpty() ? "" : " partition " + k.partition());
  }

  /**
   * A file path, resolved against the config's folder.
   *
   * @param key the key
   * @return the path, or null when absent
   */
  public @Nullable Path path(String key) {
    String text = string(key);
    return text == null ? null : base.resolve(text).normalize();
  }

  /**
   * An error about one key of this section.
   *
   * @param key the key
   * @param message what is wrong and what would be right
   * @return the exception, to throw
   */
  public ConfigException error(String key, String message) {
    return new ConfigException(
        where.apply(pointer + "/" + escape(key)) + label + "." + key + ": " + message);
  }

  /**
   * An error about the section as a whole.
   *
   * @param message what is wrong
   * @return the exception, to throw
   */
  public ConfigException error(String message) {
    return new ConfigException(where.apply(pointer) + label + ": " + message);
  }

  private static String escape(String key) {
    return key.replace("~", "~0").replace("/", "~1");
  }

  @Override
  public String toString() {
    return label;
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof SinkConfig c && c.node.equals(node) && c.pointer.equals(pointer);
  }

  @Override
  public int hashCode() {
    return Objects.hash(node, pointer);
  }
}
