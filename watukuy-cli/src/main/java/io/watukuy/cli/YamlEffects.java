package io.watukuy.cli;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.watukuy.ChangeEvent;
import io.watukuy.ConfigException;
import io.watukuy.EventType;
import io.watukuy.Poller;
import io.watukuy.Retain;
import io.watukuy.SealingKeys;
import io.watukuy.cli.CliConfig.PollerSpec;
import io.watukuy.cli.ConfigReader.At;
import io.watukuy.cli.EventTemplate.MissingValue;
import io.watukuy.effects.Arm;
import io.watukuy.effects.Effect;
import io.watukuy.effects.EffectHttp;
import io.watukuy.effects.Effects;
import io.watukuy.effects.InvalidRequest;
import io.watukuy.effects.Key;
import io.watukuy.spi.StateStore;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The {@code effects:} of a config (docs/config.md, "Effects"): each one templated HTTP request per
 * event of a poller's log, sent through the journaled client (docs/effects.md, "HTTP calls"), and
 * the {@link Effects} runtime {@code watukuy run} starts over them.
 */
final class YamlEffects {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");
  private static final Set<String> METHODS = Set.of("GET", "POST", "PUT", "PATCH", "DELETE");
  // ${NAME} or ${file:PATH} left as written by a command that runs no effects.
  private static final Pattern UNSET = Pattern.compile("\\$\\{[^}]+}");

  // Headers the JDK HTTP client sets itself and refuses from a caller (its restricted set).
  private static final Set<String> CLIENT_HEADERS =
      Set.of("connection", "content-length", "expect", "host", "upgrade");

  private YamlEffects() {}

  /** One effect as read: its arms' types, key, and request. */
  record EffectSpec(
      String name,
      String source,
      Set<EventType> on,
      @Nullable String scheme,
      @Nullable JsonPointer keyValue,
      String method,
      EventTemplate url,
      Map<String, EventTemplate> headers,
      @Nullable JsonNode body,
      @Nullable String version) {}

  /**
   * Reads {@code effects:} (absent: none).
   *
   * @throws ConfigException naming the file, line, effect, field and value of the first mistake
   */
  static List<EffectSpec> read(At effects, List<PollerSpec> pollers) {
    List<EffectSpec> out = new ArrayList<>();
    if (effects.missing()) return out;
    if (!effects.node.isArray()) throw effects.error("must be a list of effects");
    Set<String> names = new LinkedHashSet<>();
    for (int i = 0; i < effects.node.size(); i++) {
      EffectSpec spec = effect(effects.item(i), pollers);
      if (!names.add(spec.name()))
        throw effects.item(i).child("name").error("effect " + spec.name() + " is declared twice");
      out.add(spec);
    }
    return List.copyOf(out);
  }

  private static EffectSpec effect(At e, List<PollerSpec> pollers) {
    if (!e.node.isObject()) throw e.error("must be a map with a name, source, on and request");
    At nameAt = e.child("name");
    String name = text(nameAt, "");
    if (name == null) throw e.error("name: missing (the effect's name)");
    if (!NAME.matcher(name).matches())
      throw nameAt.error("'" + name + "' is not a valid effect name (letters, digits, _ . -)");
    String who = "effect " + name + ": ";
    e.object(who, List.of("name", "source", "on", "key", "request", "version"));
    At sourceAt = e.child("source");
    String source = text(sourceAt, who);
    if (source == null) throw e.error(who + "source: missing (the poller whose events it reads)");
    PollerSpec poller =
        pollers.stream().filter(p -> p.name().equals(source)).findFirst().orElse(null);
    if (poller == null)
      throw sourceAt.error(who + "no poller '" + source + "' is declared in pollers:");
    if (!poller.log().enabled())
      throw sourceAt.error(
          who
              + "poller "
              + source
              + " keeps no event log, which an effect reads: set log: {enabled: true} on it");
    Set<EventType> on = on(e.child("on"), who);
    String scheme = null;
    JsonPointer keyValue = null;
    At key = e.child("key");
    if (!key.missing()) {
      key.object(who, List.of("scheme", "value"));
      scheme = text(key.child("scheme"), who);
      if (scheme == null) throw key.error(who + "scheme: missing (the key scheme's name)");
      try {
        Key.of(scheme, ev -> ev);
      } catch (ConfigException x) {
        throw key.child("scheme").error(who + x.getMessage());
      }
      keyValue = pointer(key.child("value"), who);
      String never = never(keyValue, on, poller, false);
      if (never != null)
        throw key.child("value").error(who + "'" + keyValue + "' can never have a value: " + never);
    }
    At request = e.child("request");
    if (request.missing()) throw e.error(who + "request: missing (the HTTP request per event)");
    request.object(who, List.of("method", "url", "headers", "body"));
    At methodAt = request.child("method");
    String method = methodAt.missing() ? "POST" : text(methodAt, who);
    if (!METHODS.contains(method))
      throw methodAt.error(who + "'" + method + "' is not one of GET, POST, PUT, PATCH, DELETE");
    At urlAt = request.child("url");
    if (urlAt.missing()) throw request.error(who + "url: missing");
    Resolvable resolvable = (at, t, json) -> checkResolvable(at, t, json, who, on, poller);
    EventTemplate url = template(urlAt, who);
    checkUrl(urlAt, url, who);
    resolvable.check(urlAt, url, false);
    Map<String, EventTemplate> headers = new LinkedHashMap<>();
    At headersAt = request.child("headers");
    if (!headersAt.missing()) {
      if (!headersAt.node.isObject()) throw headersAt.error(who + "must be a map");
      for (Iterator<String> it = headersAt.node.fieldNames(); it.hasNext(); ) {
        String h = it.next();
        if (h.equalsIgnoreCase("Idempotency-Key"))
          throw headersAt
              .child(h)
              .error(who + "is set by the journal on every request (its journal key)");
        headers.put(h, template(headersAt.child(h), who));
        checkHeader(headersAt.child(h), h, headers.get(h), who);
        resolvable.check(headersAt.child(h), headers.get(h), false);
      }
    }
    At bodyAt = request.child("body");
    JsonNode body = null;
    if (!bodyAt.missing()) {
      if (!bodyAt.node.isTextual() && !bodyAt.node.isContainerNode())
        throw bodyAt.error(who + "must be a string, or a map or list sent as JSON");
      body = bodyAt.substituted();
      checkStrings(bodyAt, body, who, resolvable, false);
    }
    String version = text(e.child("version"), who);
    return new EffectSpec(
        name, source, on, scheme, keyValue, method, url, Map.copyOf(headers), body, version);
  }

  /**
   * What {@code validate} says of an effect it checked (docs/config.md, "Commands"): {@code effect
   * welcome: source orders, on created, updated, key customer (/item/customer)}; without {@code
   * key:}, {@code key identity (one lane per item)}. The request is left out: its URL and headers
   * may hold secrets.
   */
  static String describe(EffectSpec spec) {
    StringBuilder b = new StringBuilder("effect ").append(spec.name());
    b.append(": source ").append(spec.source()).append(", on ");
    b.append(String.join(", ", spec.on().stream().map(EventType::wire).toList()));
    if (spec.scheme() == null) b.append(", key identity (one lane per item)");
    else b.append(", key ").append(spec.scheme()).append(" (").append(spec.keyValue()).append(')');
    return b.toString();
  }

  /**
   * Refuses a URL no event can make valid (docs/config.md, "Effects"): rendered with {@code x} for
   * each placeholder, it must be an absolute http(s) URI with a host, or every event would fail
   * when its request is built. A stray brace or a space is caught here, not at the first event.
   */
  private static void checkUrl(At at, EventTemplate url, String who) {
    String sample = url.sample("x");
    if (at.effectsLeftUnset()) sample = UNSET.matcher(sample).replaceAll("x");
    URI uri;
    try {
      uri = new URI(sample);
    } catch (URISyntaxException x) {
      int i = x.getIndex();
      String where = i >= 0 && i < sample.length() ? " ('" + sample.charAt(i) + "')" : "";
      throw at.error(who + "'" + url + "' is not a valid URL: " + x.getReason() + where);
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null)
      throw at.error(who + "'" + url + "' is not an absolute http:// or https:// URL with a host");
  }

  /**
   * Refuses a header no event can make sendable: a name that is no HTTP token, a value whose fixed
   * text holds a control or non-ASCII character (checked with {@code x} for each placeholder, as
   * {@link #checkUrl} does), or a header the JDK client sets itself. Sent, each would fail every
   * event alike, as a terminal failure or a retry that never clears. The message names the header,
   * never its value (it may hold a secret).
   */
  private static void checkHeader(At at, String name, EventTemplate value, String who) {
    if (CLIENT_HEADERS.contains(name.toLowerCase(Locale.ROOT)))
      throw at.error(who + "is set by the HTTP client itself and cannot be sent from a config");
    String sample = value.sample("x");
    if (at.effectsLeftUnset()) sample = UNSET.matcher(sample).replaceAll("x");
    try {
      EffectHttp.Request.of("GET", "http://x/").header(name, sample);
    } catch (InvalidRequest x) {
      throw at.error(who + x.getMessage());
    }
  }

  /** A string, or null when absent; anything else is an error naming the effect and the value. */
  private static @Nullable String text(At at, String who) {
    if (at.missing()) return null;
    if (!at.node.isTextual()) throw at.error(who + "must be a string, but was " + at.node);
    return at.node.textValue();
  }

  private static Set<EventType> on(At at, String who) {
    if (at.missing())
      throw at.error(who + "missing (a list of event types: created, updated, deleted)");
    if (!at.node.isArray() || at.node.isEmpty())
      throw at.error(who + "must be a non-empty list of created, updated, deleted");
    Set<EventType> out = new LinkedHashSet<>();
    for (int i = 0; i < at.node.size(); i++) {
      At t = at.item(i);
      String text = text(t, who);
      EventType type;
      try {
        type = EventType.fromWire(String.valueOf(text));
      } catch (IllegalArgumentException x) {
        throw t.error(who + "'" + text + "' is not created, updated or deleted");
      }
      if (!out.add(type)) throw t.error(who + "'" + text + "' is listed twice");
    }
    return out;
  }

  private static JsonPointer pointer(At at, String who) {
    String text = text(at, who);
    if (text == null)
      throw at.error(who + "missing (a JSON Pointer into the event, e.g. /item/id)");
    try {
      return EventTemplate.pointer(text);
    } catch (IllegalArgumentException x) {
      throw at.error(who + x.getMessage());
    }
  }

  private static EventTemplate template(At at, String who) {
    if (!at.node.isTextual()) throw at.error(who + "must be a string, but was " + at.node);
    try {
      return EventTemplate.parse(at.effectString());
    } catch (IllegalArgumentException x) {
      throw at.error(who + x.getMessage());
    }
  }

  private static void checkStrings(
      At at, JsonNode node, String who, Resolvable resolvable, boolean json) {
    if (node.isTextual()) {
      EventTemplate t;
      try {
        t = EventTemplate.parse(node.textValue());
      } catch (IllegalArgumentException x) {
        throw at.error(who + x.getMessage());
      }
      resolvable.check(at, t, json);
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      checkStrings(at.child(f.getKey()), f.getValue(), who, resolvable, true);
    }
    if (node.isArray())
      for (int i = 0; i < node.size(); i++)
        checkStrings(at.item(i), node.get(i), who, resolvable, true);
  }

  /**
   * Refuses a template whose placeholder can never have a value: see {@link #never}. {@code json}:
   * the template is a string in a map or list body, where one that is nothing but a placeholder
   * sends a JSON null as {@code null}.
   */
  private interface Resolvable {
    void check(At at, EventTemplate template, boolean json);
  }

  private static void checkResolvable(
      At at, EventTemplate t, boolean json, String who, Set<EventType> on, PollerSpec poller) {
    for (JsonPointer p : t.pointers()) {
      String never = never(p, on, poller, json && t.only() != null);
      if (never != null) throw at.error(who + "{{" + p + "}} can never have a value: " + never);
    }
  }

  /**
   * Why {@code pointer} can never have a value in the events {@code on} of {@code poller}, or null.
   * An event carries {@code previous}, and a deleted event its {@code item}, only when the poller
   * keeps payloads ({@code retain: payload}: the stored payload before the change, which the engine
   * puts in a deleted event as its item); a placeholder or key that needs one is refused at load
   * rather than fail every event or leave it in no lane (docs/config.md, "Effects"). A created
   * event never has a previous item: {@code /previous} in it is null, which only {@code nullSent}
   * (a whole-value string of a JSON body) takes as a value.
   */
  private static @Nullable String never(
      JsonPointer pointer, Set<EventType> on, PollerSpec poller, boolean nullSent) {
    boolean payloads = poller.retain() == Retain.PAYLOAD;
    String head = pointer.getMatchingProperty();
    if (head.equals("previous") && !payloads)
      return "poller "
          + poller.name()
          + " keeps no payloads, so /previous is always null (set retain: payload on it)";
    if (head.equals("previous")
        && on.contains(EventType.CREATED)
        && !(nullSent && pointer.tail().matches()))
      return "a created event has no previous item (/previous is null in it): handle created"
          + " events in an effect of their own";
    if (head.equals("item") && on.contains(EventType.DELETED) && !payloads)
      return "poller "
          + poller.name()
          + " keeps no payloads, so a deleted event carries no item (use /identity, which every"
          + " event has, set retain: payload on the poller, or leave deleted out of on)";
    return null;
  }

  /**
   * The runtime over {@code store}: one {@link Effect} per spec, over the poller of its {@code
   * source}, and {@code secretKey} when the config has one.
   *
   * @throws ConfigException if the store keeps no effects
   */
  static Effects runtime(
      List<EffectSpec> specs,
      StateStore store,
      List<Poller<JsonNode>> pollers,
      Set<String> secrets,
      @Nullable SealingKeys secretKey) {
    Effects.Builder b = Effects.builder(store).secrets(secrets);
    if (secretKey != null) b.secretKey(secretKey);
    for (EffectSpec spec : specs) {
      Poller<JsonNode> source =
          pollers.stream().filter(p -> p.name().equals(spec.source())).findFirst().orElseThrow();
      Key<JsonNode> key =
          spec.scheme() == null
              ? Key.identity()
              : Key.of(spec.scheme(), e -> keyValue(document(e), spec.keyValue()));
      Effect.Builder<JsonNode> e = Effect.builder(spec.name()).source(source);
      Arm<JsonNode> arm = arm(spec);
      for (EventType type : spec.on()) e.on(type, arm, key);
      if (spec.version() != null) e.version(spec.version());
      b.add(e.build());
    }
    return b.build();
  }

  private static @Nullable String keyValue(JsonNode doc, @Nullable JsonPointer pointer) {
    JsonNode v = doc.at(pointer);
    return v.isMissingNode() || v.isNull() ? null : EventTemplate.text(v);
  }

  /**
   * The arm: the request rendered from the event and sent once through the journal. A 3xx or 4xx
   * answer, or an event without a value a placeholder needs, is a terminal failure: the answer is
   * journaled, so no retry can change it (a redirect is never followed: completing the event on it
   * would report a delivery that did not happen). Transport errors, 408, 425, 429 and 5xx are
   * re-sent by the journaled client.
   */
  private static Arm<JsonNode> arm(EffectSpec spec) {
    return (ctx, e) -> {
      JsonNode doc = document(e);
      EffectHttp.Request request;
      try {
        request = EffectHttp.Request.of(spec.method(), spec.url().render(doc, YamlEffects::encode));
        for (Map.Entry<String, EventTemplate> h : spec.headers().entrySet())
          request = request.header(h.getKey(), h.getValue().render(doc, v -> v));
        if (spec.body() != null) request = request.body(body(spec.body(), doc));
      } catch (MissingValue m) {
        throw ctx.fail(
            "effect "
                + spec.name()
                + ": the "
                + e.type().wire()
                + " event has no value at "
                + m.getMessage());
      }
      EffectHttp.Response r = ctx.http().send(request);
      if (r.status() >= 300 && r.status() < 400 && r.status() != 304)
        throw ctx.fail(
            "effect "
                + spec.name()
                + ": "
                + request.label()
                + " answered "
                + r.status()
                + " (a redirect"
                + location(r)
                + ", not followed: point url at the address that answers)");
      // 304 (not modified: only a conditional request the config's headers make gets it), 4xx
      if (r.status() >= 300)
        throw ctx.fail(
            "effect " + spec.name() + ": " + request.label() + " answered " + r.status());
    };
  }

  /**
   * {@code " to ORIGIN/PATH"} of a redirect's {@code Location}, never its query nor user info (a
   * secret may sit in either); or nothing without one.
   */
  static String location(EffectHttp.Response r) {
    String location = r.header("Location");
    if (location == null) return "";
    try {
      URI uri = new URI(location);
      if (uri.getScheme() == null || uri.getHost() == null)
        return uri.getRawPath() == null || uri.getRawPath().isEmpty()
            ? " within the same origin"
            : " to " + uri.getRawPath() + " of the same origin";
      String port = uri.getPort() < 0 ? "" : ":" + uri.getPort();
      return " to " + uri.getScheme() + "://" + uri.getHost() + port + uri.getRawPath();
    } catch (URISyntaxException x) {
      return " to an invalid Location";
    }
  }

  /**
   * A string body rendered as text; a map or list as JSON (see docs/config.md, "Effects"): a string
   * in it that is nothing but one placeholder takes the value with its JSON type, null included.
   *
   * @throws MissingValue naming the first pointer the event has no value at (for text, or null)
   */
  static String body(JsonNode body, JsonNode doc) throws MissingValue {
    if (body.isTextual()) return EventTemplate.parse(body.textValue()).render(doc, v -> v);
    return json(body, doc).toString();
  }

  private static JsonNode json(JsonNode node, JsonNode doc) throws MissingValue {
    if (node.isTextual()) {
      EventTemplate t = EventTemplate.parse(node.textValue());
      JsonPointer only = t.only();
      if (only != null) return EventTemplate.present(doc, only).deepCopy();
      return TextNode.valueOf(t.render(doc, v -> v));
    }
    if (node.isObject()) {
      ObjectNode copy = JsonNodeFactory.instance.objectNode();
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> f = it.next();
        copy.set(f.getKey(), json(f.getValue(), doc));
      }
      return copy;
    }
    if (node.isArray()) {
      ArrayNode copy = JsonNodeFactory.instance.arrayNode();
      for (JsonNode n : node) copy.add(json(n, doc));
      return copy;
    }
    return node;
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /**
   * The document placeholders and the key point into: {@code id}, {@code type}, {@code poller},
   * {@code partition}, {@code identity}, {@code sequence} (the log position), {@code item} and
   * {@code previous} (null unless the poller retains payloads).
   */
  static JsonNode document(ChangeEvent<JsonNode> e) {
    ObjectNode doc = JsonNodeFactory.instance.objectNode();
    doc.put("id", e.id());
    doc.put("type", e.type().wire());
    doc.put("poller", e.source());
    doc.put("partition", e.partition());
    doc.put("identity", e.identity());
    doc.put("sequence", e.sequence());
    doc.set("item", e.data() == null ? JsonNodeFactory.instance.nullNode() : e.data());
    doc.set("previous", e.previous() == null ? JsonNodeFactory.instance.nullNode() : e.previous());
    return doc;
  }
}
