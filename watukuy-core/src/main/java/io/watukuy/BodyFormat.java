package io.watukuy;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.internal.http.BodyFormats;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.charset.Charset;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * How a response body becomes a tree the engine reads items from: JSON, NDJSON, and, with module
 * {@code watukuy-formats} on the class or module path, CSV and XML (docs/config.md,
 * "response.format"). {@link HttpResult#tree()} picks one by the response's {@code Content-Type};
 * {@link HttpResult#tree(BodyFormat)} uses the one given, for example a CSV format with column
 * types.
 *
 * <p><b>Discovery.</b> JSON and NDJSON are built in. Other formats are found with {@link
 * java.util.ServiceLoader} ({@code provides io.watukuy.BodyFormat} on the module path, {@code
 * META-INF/services/io.watukuy.BodyFormat} on the class path) in their default configuration; a
 * format with options is passed explicitly. A provider needs a public no-argument constructor.
 *
 * <p>Implementations are immutable and thread-safe.
 *
 * @since 0.2
 */
public interface BodyFormat {

  /**
   * The format's name in configuration: {@code json}, {@code ndjson}, {@code csv}, {@code xml}.
   *
   * @return a lower-case name, unique among the formats available
   */
  String name();

  /**
   * Whether bodies of this media type are in this format, for {@link #forContentType}.
   *
   * @param mediaType the type and subtype of a {@code Content-Type}, lower case, without
   *     parameters, such as {@code text/csv}
   * @return true to claim it
   */
  boolean reads(String mediaType);

  /**
   * Reads one page's body into a tree. The stream holds the whole (decoded) body, already bounded
   * by {@code request.maxBodySize}; implementations read it once and do not close it.
   *
   * @param body the body bytes
   * @param charset the {@code charset} parameter of the {@code Content-Type}, or {@code null} when
   *     it names none: the format's own default applies (UTF-8 and its byte order mark; JSON's
   *     detection of UTF-16 and UTF-32; the XML declaration)
   * @return the tree; a {@link com.fasterxml.jackson.databind.node.MissingNode} for an empty body
   * @throws IOException when the body is not in this format; the message says what is wrong and
   *     where (a line, a row and column, a JSON Pointer) and is shown to the user as it is
   */
  JsonNode read(InputStream body, @Nullable Charset charset) throws IOException;

  /**
   * JSON as {@link HttpResult#json()} reads it: a repeated key in an object and anything after the
   * first value are refused.
   *
   * @return the built-in JSON format, named {@code json}; reads {@code application/json} and every
   *     {@code +json} type
   */
  static BodyFormat json() {
    return BodyFormats.JSON;
  }

  /**
   * Newline-delimited JSON (also called JSON Lines): one JSON value a line, read into an array of
   * the lines' values in order. Blank lines (a trailing newline among them) are skipped; a line
   * that is not one JSON value is an error naming its line number.
   *
   * @return the built-in NDJSON format, named {@code ndjson}; reads {@code application/x-ndjson},
   *     {@code application/ndjson}, {@code application/jsonl}, {@code application/jsonlines} and
   *     {@code application/x-jsonlines}
   */
  static BodyFormat ndjson() {
    return BodyFormats.NDJSON;
  }

  /**
   * Every format available: JSON, NDJSON, then those {@link java.util.ServiceLoader} finds.
   *
   * @return an unmodifiable list, loaded once
   */
  static List<BodyFormat> available() {
    return BodyFormats.available();
  }

  /**
   * The available format of this name.
   *
   * @param name a format name, compared case-insensitively
   * @return the format, or empty when none of {@link #available()} has this name
   */
  static Optional<BodyFormat> named(String name) {
    return BodyFormats.named(name);
  }

  /**
   * The format of a {@code Content-Type}: the first of {@link #available()} that {@link #reads} its
   * media type, and {@link #json()} when none does or there is no {@code Content-Type}, so a vendor
   * that labels JSON {@code text/plain} keeps working.
   *
   * @param contentType a {@code Content-Type} value, parameters allowed, or {@code null}
   * @return the format, never null
   */
  static BodyFormat forContentType(@Nullable String contentType) {
    return BodyFormats.forContentType(contentType);
  }

  /**
   * {@code body} as text, for a {@link #read} that parses characters: decoded in {@code charset}
   * (UTF-8 when null), with a leading byte order mark (U+FEFF) skipped, since Java's UTF-8 decoder
   * keeps it and no parser expects it. The JSON formats and {@code watukuy-formats}' CSV and XML
   * read through it.
   *
   * @param body the body bytes; closing the reader closes it
   * @param charset the {@code Content-Type}'s charset, or {@code null} for UTF-8
   * @return a reader positioned after the byte order mark, if there was one
   * @throws IOException when the first character cannot be read
   * @since 0.3
   */
  static Reader textReader(InputStream body, @Nullable Charset charset) throws IOException {
    return BodyFormats.reader(body, charset);
  }
}
