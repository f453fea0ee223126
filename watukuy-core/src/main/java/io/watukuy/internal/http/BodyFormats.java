package io.watukuy.internal.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.watukuy.BodyFormat;
import io.watukuy.internal.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PushbackReader;
import java.io.Reader;
import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The built-in {@link BodyFormat}s (JSON, NDJSON), the ones {@link ServiceLoader} finds, and the
 * reading of a {@code Content-Type}'s media type and charset.
 */
public final class BodyFormats {

  /** JSON through {@link Json#VENDOR_TREE}, as {@link io.watukuy.HttpResult#json()} reads it. */
  public static final BodyFormat JSON = new JsonFormat();

  /** One JSON value a line. */
  public static final BodyFormat NDJSON = new NdjsonFormat();

  private static final Set<String> NDJSON_TYPES =
      Set.of(
          "application/x-ndjson",
          "application/ndjson",
          "application/jsonl",
          "application/x-jsonlines",
          "application/jsonlines");

  private static volatile @Nullable List<BodyFormat> available;

  private BodyFormats() {}

  /** {@link BodyFormat#available()}. */
  public static List<BodyFormat> available() {
    List<BodyFormat> all = available;
    if (all == null) {
      List<BodyFormat> found = new ArrayList<>(List.of(JSON, NDJSON));
      try {
        for (BodyFormat f :
            ServiceLoader.load(BodyFormat.class, BodyFormat.class.getClassLoader())) {
          if (found.stream().noneMatch(g -> g.name().equalsIgnoreCase(f.name()))) found.add(f);
        }
      } catch (ServiceConfigurationError e) {
        throw new IllegalStateException(
            "a body format provider (META-INF/services/io.watukuy.BodyFormat) cannot be loaded: "
                + e.getMessage(),
            e);
      }
      all = List.copyOf(found);
      available = all;
    }
    return all;
  }

  /** {@link BodyFormat#named}. */
  public static Optional<BodyFormat> named(String name) {
    return available().stream().filter(f -> f.name().equalsIgnoreCase(name.strip())).findFirst();
  }

  /** {@link BodyFormat#forContentType}. */
  public static BodyFormat forContentType(@Nullable String contentType) {
    String type = mediaType(contentType);
    if (type.isEmpty()) return JSON;
    for (BodyFormat f : available()) {
      if (f.reads(type)) return f;
    }
    return JSON;
  }

  /** The type and subtype of a {@code Content-Type}, lower case; {@code ""} for none. */
  public static String mediaType(@Nullable String contentType) {
    if (contentType == null) return "";
    int semicolon = contentType.indexOf(';');
    String type = semicolon < 0 ? contentType : contentType.substring(0, semicolon);
    return type.strip().toLowerCase(Locale.ROOT);
  }

  /**
   * The {@code charset} parameter of a {@code Content-Type} (quoted or not).
   *
   * @return the charset, or {@code null} when the value names none
   * @throws IOException when it names one this Java runtime does not know, naming it
   */
  public static @Nullable Charset charset(@Nullable String contentType) throws IOException {
    if (contentType == null) return null;
    String[] parts = contentType.split(";");
    for (int i = 1; i < parts.length; i++) {
      String p = parts[i].strip();
      int eq = p.indexOf('=');
      if (eq < 0 || !p.substring(0, eq).strip().equalsIgnoreCase("charset")) continue;
      String name = p.substring(eq + 1).strip();
      if (name.length() >= 2 && name.startsWith("\"") && name.endsWith("\"")) {
        name = name.substring(1, name.length() - 1);
      }
      try {
        return Charset.forName(name);
      } catch (UnsupportedCharsetException | IllegalCharsetNameException e) {
        throw new IOException(
            "the Content-Type names charset '" + name + "', which this Java runtime does not know",
            e);
      }
    }
    return null;
  }

  /**
   * A reader of {@code body} in {@code charset} (UTF-8 when null) that skips a leading byte order
   * mark: Java's UTF-8 decoder keeps it as U+FEFF, which no parser expects.
   */
  public static Reader reader(InputStream body, @Nullable Charset charset) throws IOException {
    PushbackReader in =
        new PushbackReader(
            new InputStreamReader(body, charset == null ? StandardCharsets.UTF_8 : charset));
    int first = in.read();
    if (first >= 0 && first != '\uFEFF') in.unread(first);
    return in;
  }

  private static final class JsonFormat implements BodyFormat {
    @Override
    public String name() {
      return "json";
    }

    @Override
    public boolean reads(String mediaType) {
      return mediaType.equals("application/json") || mediaType.endsWith("+json");
    }

    @Override
    public JsonNode read(InputStream body, @Nullable Charset charset) throws IOException {
      // From bytes Jackson detects UTF-8 (with or without BOM), UTF-16 and UTF-32 itself.
      if (charset == null || charset.equals(StandardCharsets.UTF_8)) {
        return Json.VENDOR_TREE.readTree(body);
      }
      return Json.VENDOR_TREE.readTree(reader(body, charset));
    }

    @Override
    public String toString() {
      return name();
    }
  }

  private static final class NdjsonFormat implements BodyFormat {
    @Override
    public String name() {
      return "ndjson";
    }

    @Override
    public boolean reads(String mediaType) {
      return NDJSON_TYPES.contains(mediaType);
    }

    @Override
    public JsonNode read(InputStream body, @Nullable Charset charset) throws IOException {
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      BufferedReader lines = new BufferedReader(reader(body, charset));
      int number = 0;
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        number++;
        if (line.isBlank()) continue;
        try {
          out.add(Json.VENDOR_TREE.readTree(line));
        } catch (JsonProcessingException e) {
          String problem = BodyProblems.describe(e);
          // The parser saw the line alone: its "line 1" is this line.
          problem =
              problem
                  .replaceFirst(" \\(line 1, column (\\d+)\\)$", " (column $1)")
                  .replaceFirst(" at line 1, column (\\d+)$", " at column $1");
          throw new IOException("line " + number + " is not one JSON value: " + problem, e);
        }
      }
      return out;
    }

    @Override
    public String toString() {
      return name();
    }
  }
}
