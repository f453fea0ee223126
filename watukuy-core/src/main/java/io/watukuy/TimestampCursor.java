package io.watukuy;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The timestamp strategy: an {@code updated_since} filter plus an optional tie-break key (Cursor
 * strategies document, "timestamp"). Build with {@link Cursors#timestamp(String)}.
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
 * <p>An API that filters by the timestamp but orders its pages by something else (by id, say) is
 * declared with {@link Builder#sorted(boolean) sorted(false)}: the watermark then moves only when a
 * whole listing has completed (docs/config.md, "Unsorted listings").
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
  private final boolean sorted;

  private TimestampCursor(Builder b) {
    this.field = b.field;
    this.tieBreak = b.tieBreak;
    this.initial = b.initial;
    this.lag = b.lag;
    this.overlap = b.overlap;
    this.parse = b.parse;
    this.format = b.format;
    this.sorted = b.sorted;
  }

  @Override
  public String name() {
    return "timestamp";
  }

  /**
   * Where the timestamp is in each item.
   *
   * @return the dot path of the field in the item's JSON form, e.g. {@code meta.updatedAt}
   */
  public String field() {
    return field;
  }

  /**
   * Where the second key that orders items sharing a timestamp is.
   *
   * @return the dot path of the tie-break field, or {@code null} (default) for none
   */
  public @Nullable String tieBreak() {
    return tieBreak;
  }

  /**
   * Where the first request starts.
   *
   * @return the API's own timestamp string, or {@code null} (default) for the beginning
   */
  public @Nullable String initial() {
    return initial;
  }

  /**
   * How far behind {@code now} items must be to count: newer items are left for the next cycle
   * (late commits).
   *
   * @return the lag; default zero
   */
  public Duration lag() {
    return lag;
  }

  /**
   * How far before the watermark every request starts (clock skew).
   *
   * @return the overlap; default zero
   */
  public Duration overlap() {
    return overlap;
  }

  /**
   * The parser of the API's timestamp strings.
   *
   * @return the user's parser, or {@code null} for the default (ISO 8601, 10-digit epoch seconds,
   *     13-digit epoch milliseconds)
   */
  public @Nullable Function<String, Instant> parse() {
    return parse;
  }

  /**
   * The formatter used for overlap arithmetic only.
   *
   * @return the user's formatter, or {@code null} to mirror the shape of the stored string
   */
  public @Nullable Function<Instant, String> format() {
    return format;
  }

  /**
   * Whether the API lists items in ascending {@code (field, tieBreak)} order.
   *
   * @return {@code true} (default) when every page moves the watermark; {@code false} when it moves
   *     only once a listing has completed ({@link Builder#sorted(boolean)})
   */
  public boolean sorted() {
    return sorted;
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
    private boolean sorted = true;

    private Builder(String field) {
      Objects.requireNonNull(field, "field");
      if (field.isBlank()) throw new ConfigException("cursor.field must not be blank");
      this.field = field;
    }

    /**
     * A second key that orders items sharing a timestamp; fetch then requests {@code tieBreak >
     * cursor.tieBreak()} at exactly {@code cursor.value()}. Without one, a page boundary inside a
     * run of equal timestamps needs {@code overlap} and costs repeated requests. Default none.
     *
     * @param path dot path of the tie-break field, or {@code null} for none
     * @return this builder
     */
    public Builder tieBreak(@Nullable String path) {
      this.tieBreak = path;
      return this;
    }

    /**
     * The API's own string for the first request.
     *
     * @param value a timestamp in the API's shape, or {@code null} (default) for the beginning;
     *     {@link #build()} does not parse it, {@link Poller.Builder#build()} does
     * @return this builder
     */
    public Builder initial(@Nullable String value) {
      this.initial = value;
      return this;
    }

    /**
     * Items newer than {@code now - lag} are left for the next cycle (late commits), and a page
     * holding one ends the live lane for the cycle. Default zero.
     *
     * @param lag longer than the API's longest transaction plus clock skew; zero or more
     * @return this builder
     * @throws NullPointerException if {@code lag} is null
     * @throws ConfigException if negative
     */
    public Builder lag(Duration lag) {
      if (lag.isNegative()) throw new ConfigException("cursor.lag must be >= 0, but was " + lag);
      this.lag = lag;
      return this;
    }

    /**
     * Re-scans this much before the watermark every cycle (clock skew): fetch gets {@code value -
     * overlap} with a null tie-break; the stored watermark does not move back. Items re-seen with
     * an unchanged version or hash produce no event. Default zero.
     *
     * @param overlap zero or more
     * @return this builder
     * @throws NullPointerException if {@code overlap} is null
     * @throws ConfigException if negative
     */
    public Builder overlap(Duration overlap) {
      if (overlap.isNegative())
        throw new ConfigException("cursor.overlap must be >= 0, but was " + overlap);
      this.overlap = overlap;
      return this;
    }

    /**
     * Parses the API's timestamp strings; supply it with {@link #format} for shapes the default
     * does not know. A string it cannot parse (it throws or returns null) leaves the item out of
     * the watermark; a stored or initial value it cannot parse is a {@link ConfigException}.
     *
     * @param parse timestamp string to instant
     * @return this builder
     * @throws NullPointerException if {@code parse} is null
     */
    public Builder parse(Function<String, Instant> parse) {
      this.parse = Objects.requireNonNull(parse, "parse");
      return this;
    }

    /**
     * Formats an instant in the API's shape, for overlap arithmetic only.
     *
     * @param format instant to timestamp string
     * @return this builder
     * @throws NullPointerException if {@code format} is null
     */
    public Builder format(Function<Instant, String> format) {
      this.format = Objects.requireNonNull(format, "format");
      return this;
    }

    /**
     * Parses and formats the API's timestamps with {@code formatter}: the same as {@link #parse}
     * with {@code Instant.from(formatter.parse(text))} and {@link #format} with {@code
     * formatter.format(instant)}, for shapes such as {@code 2024-05-01 12:00:00} or {@code
     * 01/05/2024 12:00} (YAML {@code cursor.format}, docs/config.md). An offset or zone in the text
     * wins over the formatter's zone when parsing; formatting writes in the formatter's zone.
     *
     * @param formatter a formatter with a zone ({@link DateTimeFormatter#withZone}) whose pattern
     *     holds a date and a time of day
     * @return this builder
     * @throws NullPointerException if {@code formatter} is null
     * @throws ConfigException if the formatter has no zone, or cannot read back what it writes (a
     *     pattern without a time of day, or without a year)
     */
    public Builder formatter(DateTimeFormatter formatter) {
      Objects.requireNonNull(formatter, "formatter");
      if (formatter.getZone() == null)
        throw new ConfigException(
            "the cursor formatter has no zone: give it one with withZone(...)");
      // A pattern that loses part of an instant (no time of day, no year) cannot be a watermark.
      Instant probe = Instant.parse("2001-02-03T04:05:06Z");
      try {
        Instant back = Instant.from(formatter.parse(formatter.format(probe)));
        if (back.getEpochSecond() / 60 != probe.getEpochSecond() / 60)
          throw new ConfigException(
              "the cursor formatter reads "
                  + back
                  + " back from the "
                  + probe
                  + " it writes: it must hold the date and the time of day");
      } catch (DateTimeException e) {
        throw new ConfigException(
            "the cursor formatter cannot read back what it writes ("
                + e.getMessage()
                + "): it must hold the date and the time of day",
            e);
      }
      this.parse = text -> Instant.from(formatter.parse(text));
      this.format = formatter::format;
      return this;
    }

    /**
     * Whether the API's pages come in ascending {@code (field, tieBreak)} order. Default {@code
     * true}: each page moves the watermark as it commits, and a page that goes backwards fails the
     * cycle.
     *
     * <p>{@code false} is for an API that filters by the timestamp but orders its pages by
     * something else, such as a CRM search filtered by modification time and ordered by id: there a
     * page 3 may hold an item older than page 1's newest, and a watermark moved by page 1 would
     * leave that item out of every later query. With {@code sorted(false)}:
     *
     * <ul>
     *   <li>Every page is diffed and committed as it comes, so its events go out at once; the
     *       stored watermark stays at its previous value while the listing runs, and order within
     *       and across pages is not checked. {@code lag} drops nothing from a page.
     *   <li>When the listing completes (its last page says no more follow), the last page's commit
     *       moves the watermark to the smaller of the largest {@code field} value the listing saw
     *       and the scan's start minus {@code lag}, never backwards, with a null tie-break. The
     *       scan's start is the engine's clock ({@link Watukuy.Builder#time}) read just before
     *       fetch is called for page 1 of the listing, in the cycle whose listing completes. A
     *       listing that saw no parseable value leaves the watermark where it was.
     *   <li>A listing cut short (a fetch error, a budget timeout, the page cap, the tick deadline,
     *       a stop, or the process killed between pages) moves nothing: the next cycle lists again
     *       from the same watermark, and the items it lists again produce no events (their stored
     *       version or hash is unchanged). The cut is reported: {@code lastError} ({@code
     *       ListingTruncated} for the page cap or deadline, the error's own name otherwise; a stop
     *       is no error and only logged) and the log say that the watermark was kept and why, and
     *       {@link KeyReport#truncated()} is true. Nothing of a running listing is stored besides
     *       its pages, so a restart after a kill starts the listing over from the stored watermark.
     * </ul>
     *
     * <p>Fetch must page without moving the query: every page of a listing receives the same cursor
     * (with {@code overlap}, the value minus the overlap on every page), so the request must carry
     * the page number ({@link FetchContext#page()}), an offset, or a next-page link from the
     * previous response, never the cursor of the last page. A timestamp listing with {@code
     * sorted(false)} cannot be backfilled. Guarantee: every item modified at or after the stored
     * watermark is listed by a completed listing before the watermark passes it, so its change
     * reaches the handler (docs/guarantees.md, G1), and the stored watermark never moves past a
     * page whose events were not stored (G4).
     *
     * @param sorted {@code false} for an API whose pages are not in timestamp order
     * @return this builder
     */
    public Builder sorted(boolean sorted) {
      this.sorted = sorted;
      return this;
    }

    /**
     * The strategy. The builder stays usable.
     *
     * @return an immutable strategy
     */
    public TimestampCursor build() {
      return new TimestampCursor(this);
    }
  }
}
