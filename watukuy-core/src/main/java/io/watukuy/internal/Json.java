package io.watukuy.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.UncheckedIOException;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/** The engine's one JSON mapper: ISO-8601 instants, unknown properties tolerated on read. */
public final class Json {
  public static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .addModule(new JavaTimeModule())
          .addModule(IsoInstants.module())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
          .build();

  /**
   * The mapper for vendor bodies ({@link io.watukuy.HttpResult#json()}): {@link #MAPPER} that also
   * refuses a duplicate object key and anything after the first value. Lenient, {@code
   * {"id":1,"id":7}} reads as identity 7 and emits {@code deleted 1}, and two concatenated
   * documents read as the first alone: both lose data silently (docs/operations.md, "Bodies that
   * are refused"). The engine's own stored JSON is read with {@link #MAPPER}.
   */
  public static final ObjectMapper VENDOR =
      JsonMapper.builder()
          .addModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  /**
   * How {@link io.watukuy.HttpResult#json()} reads a vendor body as a tree: {@link #VENDOR}'s
   * rules, with a duplicate key found where the tree is built (Jackson's {@code
   * FAIL_ON_READING_DUP_TREE_KEY}: the object's own map says the key was there) instead of by the
   * parser's per-object set of names ({@code STRICT_DUPLICATE_DETECTION}). The same bodies are
   * refused, with the same pointer to the key, at a fraction of the cost: every page of every
   * re-scan goes through here.
   */
  public static final ObjectReader VENDOR_TREE =
      // A mapper of its own: the parser feature is the factory's, which a reader cannot turn off.
      JsonMapper.builder()
          .addModule(new JavaTimeModule())
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
          .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build()
          .reader();

  private Json() {}

  public static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static <T> T read(String json, Class<T> type) {
    try {
      return MAPPER.readValue(json, type);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * {@code text} as an instant when it has the form {@link Instant#toString()} gives ({@code
   * 2026-03-01T10:00:00.123Z}, 0 to 9 fraction digits), else {@code null}: the stored state's fast
   * reader leaves other forms to data binding.
   */
  public static @Nullable Instant isoInstant(String text) {
    return IsoInstants.parse(text);
  }

  /**
   * {@code at} as {@link Instant#toString()} gives it, the form the stored state keeps, without
   * {@code DateTimeFormatter} for years 0 to 9999.
   */
  public static String instantText(Instant at) {
    return IsoInstants.format(at);
  }

  public static JsonNode tree(String json) {
    try {
      return MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
