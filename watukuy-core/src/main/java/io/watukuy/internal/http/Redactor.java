package io.watukuy.internal.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.watukuy.internal.Json;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Hides credentials in text meant for people: exception messages, logs, parked rows, inspect output
 * (docs/architecture.md, "Partitions, tick, listeners"). Three rules:
 *
 * <ul>
 *   <li>the values of {@code Authorization}, {@code Proxy-Authorization}, {@code Cookie} and {@code
 *       Set-Cookie} headers become {@value #REDACTED};
 *   <li>in a URL, the value of a query (or fragment) parameter whose name, case-insensitively,
 *       contains {@code token}, {@code key}, {@code secret}, {@code password}, {@code passwd},
 *       {@code signature}, {@code sig}, {@code auth}, {@code credential} or {@code session}, or is
 *       {@code code}, becomes {@value #REDACTED}, and so does the password of a {@code
 *       user:password@} part;
 *   <li>every secret value (those that came from a {@code ${ENV}} substitution) becomes {@value
 *       #REDACTED} wherever it appears, in every form it takes on the way: raw, JSON-escaped
 *       ({@code \"}, {@code \\}, {@code \/}, a four-digit {@code u} escape) and escaped again up to
 *       {@link #MAX_ESCAPE_DEPTH} times in all (a JSON string holding JSON text holding the
 *       secret), percent-encoded in either style (hex in upper or lower case, any character encoded
 *       or kept, a space as {@code +} or {@code %20}), any mix of those character by character, and
 *       Base64 (standard and URL-safe, with or without padding, the standard one also with each
 *       {@code /} JSON-escaped as {@code \/}) of the value alone and of {@code user:password} for
 *       every pair of secrets, as in a Basic {@code Authorization} header.
 * </ul>
 *
 * This is the one redaction point: exception messages, log lines, stack traces, stored errors,
 * parked rows and JSON output pass through {@link #message} before they are cut, escaped or written
 * (docs/operations.md, "Secrets"); stored JSON documents (effects' journaled results) through
 * {@link #json}. Which values count as secrets (the minimum length rule) is the caller's choice;
 * this class hides every non-empty value it is given, one shorter than {@link #SHORT_SECRET_LENGTH}
 * only where it stands as a whole token. All secrets are replaced in one pass and a {@value
 * #REDACTED} marker is never scanned again, so a secret such as {@code e} or {@code d} cannot
 * garble a marker, even when text is redacted twice (the engine, then standard error).
 *
 * <p>The name rule errs on the side of hiding: {@code author} and {@code monkey} match too.
 * Immutable and thread-safe.
 */
public final class Redactor {

  /** What a hidden value is replaced with. */
  public static final String REDACTED = "[redacted]";

  /** The name rules only, for results that know no secret values. */
  public static final Redactor NONE = new Redactor(Set.of());

  private static final Set<String> SECRET_HEADERS =
      Set.of("authorization", "proxy-authorization", "cookie", "set-cookie");

  private static final Set<String> URL_HEADERS = Set.of("location", "content-location");

  private static final List<String> SECRET_PARAMETER_PARTS =
      List.of(
          "token",
          "key",
          "secret",
          "password",
          "passwd",
          "signature",
          "sig",
          "auth",
          "credential",
          "session");

  /**
   * A secret shorter than this many characters is hidden only where it stands as a whole token (not
   * inside a word), so that a one-letter password does not blank out every {@code e} of a message;
   * the same minimum as the environment rule of docs/operations.md, "Secrets".
   */
  public static final int SHORT_SECRET_LENGTH = 6;

  // A letter, digit or underscore next to a short secret's match makes it part of a word.
  private static final String WORD_CHAR = "[\\p{L}\\p{N}_]";

  // One alternation of the marker and every secret's forms, each in its own capturing group,
  // longest source first, so that a secret containing another one is replaced whole and a marker
  // already in the text is consumed whole instead of scanned again; null when there is no secret.
  private final @Nullable Pattern secrets;

  // For each capturing group (index 0 is group 1), the secret its form belongs to; null for the
  // marker and for the Base64 of a pair of two different secrets.
  private final List<@Nullable String> owners;

  // The values as given (empty ones included), for of() to tell whether it can reuse this one.
  private final Set<String> values;

  private static volatile @Nullable Redactor lastBuilt;

  /**
   * @param secretValues values to hide wherever they appear (a value shorter than {@link
   *     #SHORT_SECRET_LENGTH} only as a whole token); empty strings are ignored
   * @throws NullPointerException if a value is null
   */
  public Redactor(Collection<String> secretValues) {
    Set<String> values = new LinkedHashSet<>();
    for (String secret : secretValues) {
      Objects.requireNonNull(secret, "secret value");
      if (!secret.isEmpty()) values.add(secret);
    }
    this.values = Set.copyOf(secretValues);
    List<Form> forms = new ArrayList<>();
    for (String secret : values) {
      forms.add(new Form(secret, secret, anyEncoding(secret)));
      for (String encoded : base64(secret)) forms.add(Form.literal(secret, secret, encoded));
      // Basic auth sends user:password encoded as one Base64 string: the user may be a secret
      // too, and an API that echoes the header echoes the pair.
      for (String encoded : base64(":" + secret))
        forms.add(Form.literal(":" + secret, secret, encoded));
      for (String user : values) {
        String pair = user + ":" + secret;
        for (String encoded : base64(pair))
          forms.add(Form.literal(pair, user.equals(secret) ? secret : null, encoded));
      }
    }
    if (forms.isEmpty()) {
      this.secrets = null;
      this.owners = List.of();
      return;
    }
    forms.add(Form.literal(REDACTED, null, REDACTED));
    // Longest source first: alternation takes the first that matches at a position.
    forms.sort(Comparator.comparingInt((Form f) -> f.source.length()).reversed());
    StringBuilder regex = new StringBuilder();
    List<@Nullable String> owners = new ArrayList<>();
    for (Form form : forms) {
      if (regex.length() > 0) regex.append('|');
      regex.append('(').append(form.bounded()).append(')');
      owners.add(form.owner);
    }
    this.secrets = Pattern.compile(regex.toString());
    this.owners = owners;
  }

  /**
   * One form a secret takes: {@code source} is the plain text it stands for (its length orders the
   * alternation and decides whether it is short), {@code owner} the secret it names.
   */
  private record Form(String source, @Nullable String owner, String regex) {
    static Form literal(String source, @Nullable String owner, String text) {
      return new Form(source, owner, Pattern.quote(text));
    }

    String bounded() {
      if (source.length() >= SHORT_SECRET_LENGTH || source.equals(REDACTED)) return regex;
      return "(?<!" + WORD_CHAR + ")(?:" + regex + ")(?!" + WORD_CHAR + ")";
    }
  }

  /**
   * A redactor for {@code secretValues}, the last one built when the values are the same: the
   * engine asks for one per request and per run with the same secrets, and building one compiles a
   * pattern of every form of every secret.
   *
   * @param secretValues values to hide wherever they appear; empty strings are ignored
   * @return a redactor equal in effect to {@code new Redactor(secretValues)}
   * @throws NullPointerException if a value is null
   */
  public static Redactor of(Collection<String> secretValues) {
    Redactor last = lastBuilt;
    if (last != null && last.values.equals(Set.copyOf(secretValues))) return last;
    Redactor built = new Redactor(secretValues);
    lastBuilt = built;
    return built;
  }

  /** Whether this redactor knows no secret value (the name rules still apply). */
  public boolean hasNoSecrets() {
    return secrets == null;
  }

  /**
   * How many times over a secret's JSON escape is looked for: a response body echoing the request
   * body inside a JSON string, kept as a string of a journaled JSON document, escapes it three
   * times in the stored text; one more for a store that writes that text inside JSON again.
   */
  static final int MAX_ESCAPE_DEPTH = 6;

  /**
   * A regex matching {@code secret} with each character in any of its forms: itself, its UTF-8
   * bytes percent-encoded (hex in either case), {@code +} for a space, and its JSON escape (short
   * or four-digit {@code u}, {@code /} escaped or not) escaped again up to {@link
   * #MAX_ESCAPE_DEPTH} times in all, as a JSON string holding JSON text holding the secret has it.
   */
  private static String anyEncoding(String secret) {
    StringBuilder out = new StringBuilder();
    secret
        .codePoints()
        .forEach(
            cp -> {
              String ch = new String(Character.toChars(cp));
              out.append("(?:");
              // Longest first, so that a secret ending in an escaped character is taken whole.
              List<String> escaped = new ArrayList<>(escapes(ch));
              escaped.sort(Comparator.comparingInt(String::length).reversed());
              for (String e : escaped) out.append(Pattern.quote(e)).append('|');
              for (int depth = MAX_ESCAPE_DEPTH; depth >= 1; depth--) {
                // The four-digit escape, its backslash doubled at each further depth.
                String backslashes = Pattern.quote("\\".repeat(1 << (depth - 1)));
                for (char c : ch.toCharArray()) {
                  out.append(backslashes).append('u');
                  for (int shift = 12; shift >= 0; shift -= 4)
                    out.append(hexAnyCase((c >> shift) & 0xf));
                }
                out.append('|');
              }
              StringBuilder percent = new StringBuilder();
              for (byte b : ch.getBytes(StandardCharsets.UTF_8)) {
                percent.append('%').append(hexAnyCase((b >> 4) & 0xf)).append(hexAnyCase(b & 0xf));
              }
              out.append(percent);
              if (cp == ' ') out.append("|\\+");
              out.append(')');
            });
    return out.toString();
  }

  /**
   * {@code ch} and its short JSON escapes at every depth up to {@link #MAX_ESCAPE_DEPTH}: each
   * depth escapes the forms of the one before, with {@code /} kept or escaped; a character that
   * needs no escape stays itself.
   */
  private static Set<String> escapes(String ch) {
    Set<String> all = new LinkedHashSet<>(List.of(ch));
    Set<String> previous = Set.of(ch);
    for (int depth = 1; depth <= MAX_ESCAPE_DEPTH; depth++) {
      Set<String> next = new LinkedHashSet<>();
      for (String form : previous) {
        next.add(jsonEscaped(form, false));
        next.add(jsonEscaped(form, true));
      }
      if (all.containsAll(next)) break;
      all.addAll(next);
      previous = next;
    }
    return all;
  }

  /** {@code text} JSON-escaped as string content, {@code /} too when {@code slash} is set. */
  private static String jsonEscaped(String text, boolean slash) {
    StringBuilder out = new StringBuilder(text.length() + 4);
    text.codePoints()
        .forEach(
            cp -> {
              String escape = cp == '/' && !slash ? null : jsonEscape(cp);
              if (escape != null) out.append(escape);
              else out.appendCodePoint(cp);
            });
    return out.toString();
  }

  private static @Nullable String jsonEscape(int cp) {
    return switch (cp) {
      case '"' -> "\\\"";
      case '\\' -> "\\\\";
      case '/' -> "\\/";
      case '\b' -> "\\b";
      case '\f' -> "\\f";
      case '\n' -> "\\n";
      case '\r' -> "\\r";
      case '\t' -> "\\t";
      default -> null;
    };
  }

  private static String hexAnyCase(int digit) {
    char upper = Character.toUpperCase(Character.forDigit(digit, 16));
    if (Character.isDigit(upper)) return String.valueOf(upper);
    return "[" + upper + Character.toLowerCase(upper) + "]";
  }

  private static List<String> base64(String value) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    String standard = Base64.getEncoder().encodeToString(bytes);
    String urlSafe = Base64.getUrlEncoder().encodeToString(bytes);
    List<String> forms = new ArrayList<>(List.of(standard, urlSafe));
    // Without padding too: the padded form is longer and is tried first.
    forms.add(standard.replace("=", ""));
    forms.add(urlSafe.replace("=", ""));
    // A JSON writer that escapes '/' (PHP's json_encode, some Java and .NET writers) turns every
    // '/' of the standard alphabet into '\/': a response echoing the header carries that form.
    if (standard.indexOf('/') >= 0) {
      forms.add(standard.replace("/", "\\/"));
      forms.add(standard.replace("=", "").replace("/", "\\/"));
    }
    return forms;
  }

  /** Whether a header's values are always hidden. */
  public static boolean isSecretHeader(String name) {
    return SECRET_HEADERS.contains(name.toLowerCase(Locale.ROOT));
  }

  /** Whether a query parameter's value is always hidden. */
  public static boolean isSecretParameter(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    if (lower.equals("code")) return true;
    for (String part : SECRET_PARAMETER_PARTS) {
      if (lower.contains(part)) return true;
    }
    return false;
  }

  /**
   * {@code text} with every secret value replaced by {@value #REDACTED}, in one pass: a marker
   * already in the text is kept as it is, so redacting twice gives the same text as once. Null
   * gives the empty string.
   */
  public String message(@Nullable String text) {
    return replaced(text, secret -> REDACTED);
  }

  /**
   * {@code text} with every form of every secret replaced, in one pass, by {@code name} applied to
   * the secret it stands for (the Base64 of a pair of two different secrets, and a {@value
   * #REDACTED} marker already there, become {@value #REDACTED}). Null gives the empty string.
   *
   * @param name the replacement of one secret, e.g. the {@code ${VARIABLE}} it came from
   */
  public String replaced(@Nullable String text, Function<String, String> name) {
    if (text == null) return "";
    Pattern pattern = secrets;
    if (pattern == null) return text;
    Matcher matcher = pattern.matcher(text);
    return matcher.replaceAll(
        match -> {
          for (int group = 1; group <= owners.size(); group++) {
            if (match.group(group) == null) continue;
            String owner = owners.get(group - 1);
            return Matcher.quoteReplacement(owner == null ? REDACTED : name.apply(owner));
          }
          return Matcher.quoteReplacement(REDACTED);
        });
  }

  /**
   * JSON text with every secret value hidden, still JSON, for a document that is stored (an
   * effect's journaled result, docs/effects.md, "The journal"). Each string, member name and number
   * is redacted as {@link #message} does it, unescaped, so a secret is found however deep it is
   * escaped: in a string that itself holds JSON text (a response body echoing a token, where the
   * token's quote is escaped twice in the stored text) as well as in plain text. A number or name
   * that held a secret becomes the string or name {@value #REDACTED}. Text that is not JSON, and
   * any form of a secret left across two tokens, is redacted as text by {@link #message}.
   *
   * @param json JSON text
   * @return the same document when it holds no secret (the same text), otherwise the redacted one
   */
  public String json(String json) {
    if (secrets == null) return json;
    JsonNode tree;
    try {
      tree = Json.MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      return message(json);
    }
    if (tree == null) return message(json);
    JsonNode redacted = redacted(tree);
    if (redacted == tree) return message(json);
    try {
      return message(Json.MAPPER.writeValueAsString(redacted));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a redacted JSON tree cannot be written: " + e, e);
    }
  }

  /** {@code node} with its secrets hidden; {@code node} itself when it holds none. */
  private JsonNode redacted(JsonNode node) {
    if (node.isTextual() || node.isNumber()) {
      String text = node.asText();
      String hidden = message(text);
      return hidden.equals(text) ? node : TextNode.valueOf(hidden);
    }
    if (!node.isContainerNode()) return node;
    boolean changed = false;
    if (node.isArray()) {
      ArrayNode copy = JsonNodeFactory.instance.arrayNode(node.size());
      for (JsonNode item : node) {
        JsonNode r = redacted(item);
        changed |= r != item;
        copy.add(r);
      }
      return changed ? copy : node;
    }
    ObjectNode copy = JsonNodeFactory.instance.objectNode();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      String name = message(field.getKey());
      JsonNode r = redacted(field.getValue());
      changed |= r != field.getValue() || !name.equals(field.getKey());
      copy.set(name, r);
    }
    return changed ? copy : node;
  }

  /**
   * The stack trace of {@code error} as {@link Throwable#printStackTrace()} prints it, causes and
   * suppressed exceptions included, with every secret value hidden.
   */
  public String stackTrace(Throwable error) {
    StringWriter w = new StringWriter();
    error.printStackTrace(new PrintWriter(w));
    return message(w.toString());
  }

  /** {@code url} with the password of its user info and credential-like parameters hidden. */
  public String url(String url) {
    int fragmentStart = url.indexOf('#');
    String beforeFragment = fragmentStart < 0 ? url : url.substring(0, fragmentStart);
    @Nullable String fragment = fragmentStart < 0 ? null : url.substring(fragmentStart + 1);
    int queryStart = beforeFragment.indexOf('?');
    String base = queryStart < 0 ? beforeFragment : beforeFragment.substring(0, queryStart);
    @Nullable String query = queryStart < 0 ? null : beforeFragment.substring(queryStart + 1);

    StringBuilder out = new StringBuilder(url.length() + 16).append(userInfoHidden(base));
    if (query != null) out.append('?').append(parametersHidden(query));
    // OAuth implicit flows put tokens in the fragment.
    if (fragment != null) out.append('#').append(parametersHidden(fragment));
    return message(out.toString());
  }

  /**
   * A copy of {@code headers} for messages: names lower-cased (values of names differing only in
   * case merged), sorted, secret headers hidden, URLs in {@code Location} redacted, secret values
   * replaced. HTTP/2 pseudo-headers are left out. Unmodifiable.
   */
  public Map<String, List<String>> headers(Map<String, List<String>> headers) {
    TreeMap<String, List<String>> out = new TreeMap<>();
    headers.forEach(
        (name, values) -> {
          if (name.startsWith(":")) return;
          String lower = name.toLowerCase(Locale.ROOT);
          List<String> target = out.computeIfAbsent(lower, k -> new ArrayList<>());
          for (String value : values) target.add(headerValue(lower, value));
        });
    out.replaceAll((name, values) -> List.copyOf(values));
    return Collections.unmodifiableMap(out);
  }

  /** One header value as it may be shown. */
  public String headerValue(String name, String value) {
    if (isSecretHeader(name)) return REDACTED;
    if (URL_HEADERS.contains(name.toLowerCase(Locale.ROOT))) return url(value);
    return message(value);
  }

  private static String userInfoHidden(String base) {
    int schemeEnd = base.indexOf("://");
    if (schemeEnd < 0) return base;
    int authorityStart = schemeEnd + 3;
    int authorityEnd = base.indexOf('/', authorityStart);
    if (authorityEnd < 0) authorityEnd = base.length();
    int at = base.lastIndexOf('@', authorityEnd - 1);
    if (at < authorityStart) return base;
    int colon = base.indexOf(':', authorityStart);
    if (colon < 0 || colon > at) return base;
    return base.substring(0, colon + 1) + REDACTED + base.substring(at);
  }

  private static String parametersHidden(String parameters) {
    if (parameters.indexOf('=') < 0) return parameters;
    String[] parts = parameters.split("&", -1);
    StringBuilder out = new StringBuilder(parameters.length());
    for (int i = 0; i < parts.length; i++) {
      if (i > 0) out.append('&');
      String part = parts[i];
      int eq = part.indexOf('=');
      if (eq > 0 && isSecretParameter(decode(part.substring(0, eq)))) {
        out.append(part, 0, eq + 1).append(REDACTED);
      } else {
        out.append(part);
      }
    }
    return out.toString();
  }

  private static String decode(String name) {
    try {
      return URLDecoder.decode(name, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException malformed) {
      return name;
    }
  }
}
