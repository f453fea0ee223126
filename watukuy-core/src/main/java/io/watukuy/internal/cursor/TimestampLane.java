package io.watukuy.internal.cursor;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ConfigException;
import io.watukuy.Page;
import io.watukuy.TimestampCursor;
import io.watukuy.Watermark;
import io.watukuy.internal.ItemView;
import io.watukuy.internal.Json;
import io.watukuy.internal.Values;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The timestamp strategy: composite keyset (value, tieBreak), lag, overlap. */
final class TimestampLane implements LaneCursor<Watermark> {
  private static final Logger log = LoggerFactory.getLogger(TimestampLane.class);

  private final String poller;
  private final TimestampCursor config;

  TimestampLane(String poller, TimestampCursor config) {
    this.poller = poller;
    this.config = config;
  }

  @Override
  public Watermark initial() {
    return new Watermark(config.initial(), null);
  }

  @Override
  public Watermark decode(@Nullable String json) {
    if (json == null) return initial();
    // Token by token (an idle poll decodes its cursor): string or null values, in the form encode
    // writes. Anything else (a number, an object) is read as a tree, as before.
    try (JsonParser p = Json.MAPPER.getFactory().createParser(json)) {
      if (p.nextToken() == JsonToken.START_OBJECT) {
        String value = null;
        String tieBreak = null;
        boolean plain = true;
        while (plain && p.nextToken() == JsonToken.FIELD_NAME) {
          String field = p.currentName();
          JsonToken t = p.nextToken();
          String text =
              t == JsonToken.VALUE_STRING ? p.getText() : t == JsonToken.VALUE_NULL ? null : "";
          if (t != JsonToken.VALUE_STRING && t != JsonToken.VALUE_NULL) plain = false;
          else if (field.equals("value")) value = text;
          else if (field.equals("tieBreak")) tieBreak = text;
        }
        if (plain && p.currentToken() == JsonToken.END_OBJECT && p.nextToken() == null)
          return new Watermark(value, tieBreak);
      }
    } catch (IOException e) {
      // the tree reader below reports it
    }
    JsonNode n = Json.tree(json);
    return new Watermark(Values.scalarText(n.get("value")), Values.scalarText(n.get("tieBreak")));
  }

  @Override
  public @Nullable String encode(@Nullable Watermark c) {
    if (c == null) return null;
    // The text an ObjectNode of the two fields gives, written without building one.
    StringWriter out = new StringWriter(64);
    try (JsonGenerator g = Json.MAPPER.getFactory().createGenerator(out)) {
      g.writeStartObject();
      if (c.value() == null) g.writeNullField("value");
      else g.writeStringField("value", c.value());
      if (c.tieBreak() == null) g.writeNullField("tieBreak");
      else g.writeStringField("tieBreak", c.tieBreak());
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  @Override
  public Watermark forFetch(@Nullable Watermark stored) {
    Watermark w = stored == null ? initial() : stored;
    Duration overlap = config.overlap();
    if (overlap.isZero() || w.value() == null) return w;
    Instant back = parseCursor(w.value()).minus(overlap);
    String formatted =
        config.format() != null
            ? config.format().apply(back)
            : TimestampFormats.formatLike(w.value(), back);
    return new Watermark(formatted, null);
  }

  /**
   * Unsorted listings hand every page the same cursor: the stored watermark does not move while the
   * listing runs, and the request must stay the query its page 1 started (the overlap too).
   */
  @Override
  public Watermark forFetch(@Nullable Watermark stored, int page) {
    return config.sorted() ? LaneCursor.super.forFetch(stored, page) : forFetch(stored);
  }

  @Override
  public boolean holdsUntilComplete() {
    return !config.sorted();
  }

  @Override
  public @Nullable Object startListing(Instant start) {
    return config.sorted() ? null : new Scan(start);
  }

  @Override
  public Watermark fromRaw(@Nullable String raw) {
    if (raw == null) return initial();
    parseCursor(raw);
    return new Watermark(raw, null);
  }

  @Override
  public @Nullable String toRaw(@Nullable Watermark cursor) {
    return cursor == null ? null : cursor.value();
  }

  @Override
  public @Nullable Long lagMs(@Nullable Watermark cursor, Instant now) {
    if (cursor == null || cursor.value() == null) return null;
    return Duration.between(parseCursor(cursor.value()), now).toMillis();
  }

  @Override
  public boolean beyond(ItemView item, @Nullable Watermark target) {
    if (target == null || target.value() == null) return false;
    String raw = Values.scalarText(Values.path(item.json, config.field()));
    Instant at = raw == null ? null : tryParse(raw);
    return at != null && at.isAfter(parseCursor(target.value()));
  }

  /** An unsorted listing has no watermark to stop a backfill at: it moves only at the end. */
  @Override
  public boolean ordered() {
    return config.sorted();
  }

  @Override
  public boolean reached(@Nullable Watermark cursor, @Nullable Watermark target) {
    if (target == null || target.value() == null) return false;
    if (cursor == null || cursor.value() == null) return false;
    int c = parseCursor(cursor.value()).compareTo(parseCursor(target.value()));
    if (c != 0) return c > 0;
    // At the target's instant, the tie-break decides: the items tied there up to the target's own
    // tie-break are still to read (a forced backfill re-emits them too). A target without one
    // stops only past its instant, or at the end of the listing.
    if (target.tieBreak() == null || cursor.tieBreak() == null) return false;
    BigDecimal x = Tie.decimal(cursor.tieBreak());
    BigDecimal y = Tie.decimal(target.tieBreak());
    int t =
        x != null && y != null ? x.compareTo(y) : cursor.tieBreak().compareTo(target.tieBreak());
    return t >= 0;
  }

  /** Parses a cursor value; a failure is a configuration problem naming the field and string. */
  Instant parseCursor(String raw) {
    Instant t = tryParse(raw);
    if (t == null)
      // Says what value would do, not how to change the parser: the value may come from a person
      // (resetCursor, backfill, initial) who can only retype it.
      throw new ConfigException(
          "poller "
              + poller
              + ": cursor.field "
              + config.field()
              + ": '"
              + raw
              + "' is not a timestamp"
              + (config.parse() != null
                  ? " that the cursor's parse function reads"
                  : ": use ISO 8601 (2024-05-01T00:00:00Z, 2024-05-01T02:00:00+02:00, 2024-05-01)"
                      + " or epoch seconds (10 digits) or milliseconds (13 digits)"));
    return t;
  }

  private @Nullable Instant tryParse(String raw) {
    try {
      return config.parse() != null ? config.parse().apply(raw) : TimestampFormats.parse(raw);
    } catch (RuntimeException e) {
      return null;
    }
  }

  @Override
  public Step<Watermark> advance(
      @Nullable Watermark stored,
      @Nullable Watermark sent,
      Page<?> page,
      List<ItemView> items,
      Instant now) {
    Watermark current = stored == null ? initial() : stored;
    boolean more = Boolean.TRUE.equals(page.hasMore());
    if (page.cursor() != null) {
      // The API told us its own watermark: trust it, no lag filtering.
      String override = Values.scalarText(page.cursor());
      if (override == null || override.isEmpty()) return new Step<>(current, !more, items, !more);
      parseCursor(override);
      return new Step<>(new Watermark(override, null), !more, items, !more);
    }
    Instant cutoff = config.lag().isZero() ? null : now.minus(config.lag());
    Key max =
        current.value() == null
            ? null
            : new Key(parseCursor(current.value()), current.value(), tie(current.tieBreak(), null));
    Key previous = null;
    boolean dropped = false;
    String unparsed = null; // the first value present that does not parse, for the warning
    List<ItemView> kept = new ArrayList<>(items.size());
    for (ItemView v : items) {
      JsonNode field = Values.path(v.json, config.field());
      String raw = Values.scalarText(field);
      Instant at = raw == null ? null : tryParse(raw);
      if (at == null) {
        if (unparsed == null && raw != null) unparsed = raw;
        kept.add(v); // diffed, but never moves the watermark
        continue;
      }
      if (cutoff != null && at.isAfter(cutoff)) {
        dropped = true; // a late commit may still land before it: leave it for the next cycle
        continue;
      }
      Tie tie = config.tieBreak() == null ? null : tieOf(Values.path(v.json, config.tieBreak()));
      Key k = new Key(at, raw, tie);
      if (previous != null && k.compareTo(previous) < 0)
        throw new BadPage(
            v.index(),
            "items are not in ascending ("
                + config.field()
                + (config.tieBreak() == null ? "" : ", " + config.tieBreak())
                + ") order: "
                + describe(k)
                + " after "
                + describe(previous)
                + "; committing this page would skip rows after a crash");
      previous = k;
      kept.add(v);
      if (max == null || k.compareTo(max) > 0) max = k;
    }
    if (!items.isEmpty() && previous == null && !dropped) noneParsed(items.size(), unparsed);
    Watermark next = current;
    if (max != null) {
      boolean sameInstant = current.value() != null && max.at.equals(parseCursor(current.value()));
      String value = sameInstant ? current.value() : max.raw;
      next =
          new Watermark(
              value, max.tie == null ? (sameInstant ? current.tieBreak() : null) : max.tie.text);
    }
    // An empty page that leaves the watermark where it was would be requested again verbatim:
    // end the lane rather than loop on it until the page cap.
    boolean stuck = items.isEmpty() && next.equals(current);
    boolean done = dropped || !more || stuck;
    return new Step<>(next, done, kept, !dropped && !more);
  }

  /** Every item of a page lacks a parseable field: the watermark cannot move (a wrong field?). */
  private void noneParsed(int items, @Nullable String unparsed) {
    log.warn(
        "poller {}: none of the {} items of this page has a parseable cursor.field '{}'; the cursor"
            + " cannot move ({})",
        poller,
        items,
        config.field(),
        unparsed == null
            ? "check the field name"
            : "the first value is '"
                + (unparsed.length() > 60 ? unparsed.substring(0, 60) + "…" : unparsed)
                + "': check cursor.format, or that the field holds a timestamp");
  }

  @Override
  public Step<Watermark> advance(
      @Nullable Watermark stored,
      @Nullable Watermark sent,
      Page<?> page,
      List<ItemView> items,
      Instant now,
      @Nullable Object listing) {
    if (!(listing instanceof Scan scan)) return advance(stored, sent, page, items, now);
    return unsorted(stored == null ? initial() : stored, page, items, scan);
  }

  /**
   * A page of an unsorted listing (docs/config.md, "Unsorted listings"): every item is diffed, none
   * is checked for order or dropped by lag; the largest value is remembered in {@code scan}, and
   * the watermark stays at {@code current} until the page that ends the listing.
   */
  private Step<Watermark> unsorted(
      Watermark current, Page<?> page, List<ItemView> items, Scan scan) {
    boolean more = Boolean.TRUE.equals(page.hasMore());
    if (page.cursor() != null) {
      // The API told us its own watermark: it is taken, but only when the listing completes.
      String override = Values.scalarText(page.cursor());
      if (override != null && !override.isEmpty()) {
        parseCursor(override);
        scan.override = override;
      }
    }
    boolean parsed = false;
    String unparsed = null;
    for (ItemView v : items) {
      String raw = Values.scalarText(Values.path(v.json, config.field()));
      Instant at = raw == null ? null : tryParse(raw);
      if (at == null) {
        if (unparsed == null && raw != null) unparsed = raw;
        continue;
      }
      parsed = true;
      Tie tie = config.tieBreak() == null ? null : tieOf(Values.path(v.json, config.tieBreak()));
      Key k = new Key(at, raw, tie);
      if (scan.max == null || k.compareTo(scan.max) > 0) scan.max = k;
    }
    if (!items.isEmpty() && !parsed && scan.override == null) noneParsed(items.size(), unparsed);
    if (more) return new Step<>(current, false, items, false);
    return new Step<>(completed(current, scan), true, items, true);
  }

  /**
   * Where a completed unsorted listing leaves the watermark: at the smaller of the largest value it
   * saw and the scan's start minus lag (the newer items may still have late commits before them),
   * never backwards, with no tie-break (the items at that instant are listed again, and produce no
   * events). Nothing seen: where it was.
   */
  private Watermark completed(Watermark current, Scan scan) {
    if (scan.override != null) return new Watermark(scan.override, null);
    if (scan.max == null) return current;
    Instant ceiling = scan.start.minus(config.lag());
    Instant at = scan.max.at;
    String raw = scan.max.raw;
    if (at.isAfter(ceiling)) {
      at = ceiling;
      raw =
          config.format() != null
              ? config.format().apply(ceiling)
              : TimestampFormats.formatLike(scan.max.raw, ceiling);
    }
    // Compared as written: a shape coarser than the instant (a date, epoch seconds) rounds down.
    Instant written = tryParse(raw);
    if (written != null) at = written;
    if (current.value() != null && !at.isAfter(parseCursor(current.value()))) return current;
    return new Watermark(raw, null);
  }

  /** The running state of one unsorted listing: when it started, the largest key it saw. */
  private static final class Scan {
    final Instant start;
    @Nullable Key max;
    @Nullable String override;

    Scan(Instant start) {
      this.start = start;
    }
  }

  /**
   * A stall on a timestamp is almost always a tie: more items share the watermark's instant than a
   * page holds, and the request cannot filter past them. Says how many, at which instant, and the
   * fix that fits what the request carried.
   */
  @Override
  public Stall stall(
      @Nullable Watermark before, @Nullable Watermark after, List<ItemView> page, Stall.Mode mode) {
    Instant at = after == null || after.value() == null ? null : tryParse(after.value());
    Instant was = before == null || before.value() == null ? null : tryParse(before.value());
    if (at == null || !at.equals(was)) return Stall.generic(mode);
    int tied = 0;
    for (ItemView v : page) {
      String raw = Values.scalarText(Values.path(v.json, config.field()));
      if (raw != null && at.equals(tryParse(raw))) tied++;
    }
    // A tie fills the page, or it is not what stalled (an API that ignores the cursor, say).
    if (tied == 0 || tied < page.size()) return Stall.generic(mode);
    String share =
        "at least "
            + tied
            + " items share "
            + config.field()
            + " "
            + after.value()
            + " and fill a page: raise the page size above the widest tie, or ";
    String fix;
    if (config.tieBreak() == null)
      fix =
          share
              + "set cursor.tieBreak and pass it ({{cursor.tieBreak}}) if the API can filter by it";
    else if (mode == Stall.Mode.API_IGNORES_CURSOR)
      fix =
          share
              + "check the parameter that carries {{cursor.tieBreak}}: the API ignored the"
              + " tie-break the request carried ('"
              + after.tieBreak()
              + "')";
    else fix = share + "pass the tie-break ({{cursor.tieBreak}}) if the API can filter by it";
    return new Stall(Stall.PAGE_REPEATED, fix);
  }

  private static String describe(Key k) {
    return "'" + k.raw + "'" + (k.tie == null ? "" : "/" + k.tie.text);
  }

  private static @Nullable Tie tieOf(JsonNode n) {
    if (n.isMissingNode() || n.isNull()) return null;
    if (n.isNumber()) return new Tie(n.toString(), n.decimalValue());
    return new Tie(n.asText(), null);
  }

  private static @Nullable Tie tie(@Nullable String text, @Nullable BigDecimal number) {
    return text == null ? null : new Tie(text, number);
  }

  /** A tie-break value: a JSON number compares as a number, a string by String.compareTo. */
  private record Tie(String text, @Nullable BigDecimal number) implements Comparable<Tie> {
    @Override
    public int compareTo(Tie o) {
      BigDecimal a = number != null ? number : (o.number != null ? decimal(text) : null);
      BigDecimal b = o.number != null ? o.number : (number != null ? decimal(o.text) : null);
      if (a != null && b != null) return a.compareTo(b);
      return text.compareTo(o.text);
    }

    private static @Nullable BigDecimal decimal(String s) {
      try {
        return new BigDecimal(s);
      } catch (NumberFormatException e) {
        return null;
      }
    }
  }

  private record Key(Instant at, String raw, @Nullable Tie tie) implements Comparable<Key> {
    @Override
    public int compareTo(Key o) {
      int c = at.compareTo(o.at);
      if (c != 0) return c;
      if (tie == null) return o.tie == null ? 0 : -1;
      if (o.tie == null) return 1;
      return tie.compareTo(o.tie);
    }
  }
}
