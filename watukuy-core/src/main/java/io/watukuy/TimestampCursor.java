package io.watukuy;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The timestamp strategy: an {@code updated_since} filter plus an optional tie-break key
 * (Cursor strategies document, "timestamp"). Build with {@link Cursors#timestamp(String)}.
 *
 * <p>After each page the watermark becomes the largest {@code (field, tieBreak)} of the page's
 * items, storing the server's own string; ties at the boundary only grow {@code tieBreak} (a
 * tie-break that is a JSON number compares as a number, a string by {@link String#compareTo}).
 * {@code lag} drops items newer than {@code now - lag} from the page and the watermark, and ends
 * the live lane for the cycle; {@code overlap} hands fetch {@code value - overlap} with a null
 * tie-break without moving the stored cursor. An item whose field is missing or unparseable is
 * diffed but never moves the watermark. Items must arrive in ascending {@code (field, tieBreak)}
 * order; a page that goes backwards fails the cycle.
 *
 * @since 0.1
 */
public final class TimestampCursor implements CursorStrategy<Watermark> {
  private final String field;
  private final @Nullable String tieBreak;
  private final @Nullable String initial;
  private final Duration lag;
  private final Duration overlap;
  private final @Nullable Function<String, Instant> parse;
  private final @Nullable Function<Instant, String> format;

  private TimestampCursor(Builder b) {
    this.field = b.field;
    this.tieBreak = b.tieBreak;
    this.initial = b.initial;
    this.lag = b.lag;
    this.overlap = b.overlap;
    this.parse = b.parse;
    this.format = b.format;
  }

  @Override
  public String name() {
    return "timestamp";
  }

  /** Dot path of the timestamp field in the item's JSON form, e.g. {@code meta.updatedAt}. */
  public String field() {
    return field;
  }

  /** Dot path of the tie-break field, or {@code null} (default). */
  public @Nullable String tieBreak() {
    return tieBreak;
  }

  /** The API's own string to start from, or {@code null} (default) for the beginning. */
  public @Nullable String initial() {
    return initial;
  }

  /** Default zero. */
  public Duration lag() {
    return lag;
  }

  /** Default zero. */
  public Duration overlap() {
    return overlap;
  }

  /** The user's parser, or {@code null} for the default (ISO 8601, 10-digit epoch seconds, 13-digit epoch millis). */
  public @Nullable Function<String, Instant> parse() {
    return parse;
  }

  /** The user's formatter for overlap arithmetic, or {@code null} to mirror the stored shape. */
  public @Nullable Function<Instant, String> format() {
    return format;
  }

  static Builder builder(String field) {
    return new Builder(field);
  }

  /** Builds a {@link TimestampCursor}. Not thread-safe. */
  public static final class Builder {
    private final String field;
    private @Nullable String tieBreak;
    private @Nullable String initial;
    private Duration lag = Duration.ZERO;
    private Duration overlap = Duration.ZERO;
    private @Nullable Function<String, Instant> parse;
    private @Nullable Function<Instant, String> format;

    private Builder(String field) {
      Objects.requireNonNull(field, "field");
      if (field.isBlank()) throw new ConfigException("cursor.field must not be blank");
      this.field = field;
    }

    /** Dot path of a second key that orders items sharing a timestamp. Default none. */
    public Builder tieBreak(@Nullable String path) {
      this.tieBreak = path;
      return this;
    }

    /** The API's own string for the first request; {@code null} (default) sends none. */
    public Builder initial(@Nullable String value) {
      this.initial = value;
      return this;
    }

    /**
     * Items newer than {@code now - lag} are left for the next cycle (late commits).
     *
     * @throws ConfigException if negative
     */
    public Builder lag(Duration lag) {
      if (lag.isNegative()) throw new ConfigException("cursor.lag must be >= 0, but was " + lag);
      this.lag = lag;
      return this;
    }

    /**
     * Re-scans this much before the watermark every cycle (clock skew).
     *
     * @throws ConfigException if negative
     */
    public Builder overlap(Duration overlap) {
      if (overlap.isNegative())
        throw new ConfigException("cursor.overlap must be >= 0, but was " + overlap);
      this.overlap = overlap;
      return this;
    }

    /** Parses the API's timestamp strings; supply with {@link #format} for other shapes. */
    public Builder parse(Function<String, Instant> parse) {
      this.parse = Objects.requireNonNull(parse, "parse");
      return this;
    }

    /** Formats an instant in the API's shape, for overlap arithmetic only. */
    public Builder format(Function<Instant, String> format) {
      this.format = Objects.requireNonNull(format, "format");
      return this;
    }

    public TimestampCursor build() {
      return new TimestampCursor(this);
    }
  }
}
