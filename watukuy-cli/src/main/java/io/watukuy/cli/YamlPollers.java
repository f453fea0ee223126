package io.watukuy.cli;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.BodyFormat;
import io.watukuy.ConfigException;
import io.watukuy.CursorStrategy;
import io.watukuy.Cursors;
import io.watukuy.FetchContext;
import io.watukuy.HttpResult;
import io.watukuy.NextUrlPaging;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.Reconcile;
import io.watukuy.RequestOptions;
import io.watukuy.TimestampCursor;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import io.watukuy.cli.CliConfig.CursorSpec;
import io.watukuy.cli.CliConfig.PollerSpec;
import io.watukuy.cli.CliConfig.RequestSpec;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/** Turns the pollers of a config into {@link Poller}s whose fetch follows the YAML. */
final class YamlPollers {
  private YamlPollers() {}

  /**
   * Builds every poller of {@code config}.
   *
   * @throws ConfigException when a builder rejects a setting; the message names file, line and
   *     poller
   */
  static List<Poller<JsonNode>> build(CliConfig config) {
    List<Poller<JsonNode>> out = new ArrayList<>();
    Function<@Nullable String, String> redact = Watukuy.redaction(config.secrets());
    for (PollerSpec spec : config.pollers()) {
      try {
        out.add(build(spec, redact));
      } catch (ConfigException e) {
        throw new ConfigException(
            config.file() + ":" + spec.line() + ": poller " + spec.name() + ": " + e.getMessage(),
            e);
      }
    }
    return out;
  }

  private static Poller<JsonNode> build(
      PollerSpec spec, Function<@Nullable String, String> redact) {
    Poller.Builder<JsonNode, Void> b =
        Poller.builder(spec.name(), JsonNode.class)
            .identity(item -> identity(spec.identity(), item))
            .schedule(spec.schedule())
            .retain(spec.retain())
            .delivery(spec.delivery())
            .log(spec.log());
    if (spec.maxPagesPerCycle() != null) b.maxPagesPerCycle(spec.maxPagesPerCycle());
    b.deleteGuard(spec.deletes().maxRatio(), spec.deletes().minCount());
    if (spec.schema() != null) b.validator(spec.schema()::problems);
    if (spec.version() != null) b.version(item -> spec.version().find(item));
    if (spec.orderingKey() != null) b.orderingKey(item -> keyText(spec.orderingKey().find(item)));
    if (spec.deleted() != null) {
      CliConfig.DeletedSpec d = spec.deleted();
      b.tombstone(
          item -> {
            JsonNode v = d.at().find(item);
            return d.equals() == null
                ? v.isBoolean() && v.booleanValue()
                : v.isValueNode() && v.asText().equals(d.equals());
          });
    }
    if (!spec.partitions().isEmpty()) b.partitions(spec.partitions());
    if (spec.budget() != null) b.budget(spec.budget()).weight(spec.weight());
    if (spec.maxWait() != null) b.maxWait(spec.maxWait());
    if (spec.staleAfter() != null) b.staleAfter(spec.staleAfter());
    if (spec.maxParked() != null) b.maxParked(spec.maxParked());
    if (spec.request().timeout() != null) b.requestTimeout(spec.request().timeout());
    if (spec.request().maxBodySize() != null) b.maxBodySize(spec.request().maxBodySize());
    if (spec.maxItemSize() != null) b.maxItemSize(spec.maxItemSize());
    if (spec.auth() != null) b.requestSigner(spec.auth().origin(), spec.auth().signer());
    YamlFetcher live =
        new YamlFetcher(
            spec.request(),
            spec.response(),
            spec.identity(),
            new PointerChecks(spec, spec.response()),
            OffsetPaging.of(spec.request(), spec.cursor().maxOffset()),
            redact,
            spec.cursor().strategy().equals("token"),
            !spec.cursor().sorted());
    Reconcile<JsonNode> reconcile = null;
    if (spec.reconcile() != null) {
      CliConfig.ResponseSpec r = spec.reconcile().response();
      YamlFetcher listing =
          new YamlFetcher(
              spec.reconcile().request(),
              r,
              spec.identity(),
              new PointerChecks(spec, r),
              OffsetPaging.of(spec.reconcile().request(), null),
              redact,
              false);
      reconcile = Reconcile.every(spec.reconcile().every(), listing::fetch);
    }
    return finish(b.cursor(strategy(spec.cursor())), live, reconcile);
  }

  private static <C> Poller<JsonNode> finish(
      Poller.Builder<JsonNode, C> b, YamlFetcher fetcher, @Nullable Reconcile<JsonNode> reconcile) {
    b.fetch(fetcher::fetch);
    if (reconcile != null) b.reconcile(reconcile);
    return b.build();
  }

  private static CursorStrategy<?> strategy(CursorSpec c) {
    return switch (c.strategy()) {
      case "timestamp" -> {
        TimestampCursor.Builder t =
            Cursors.timestamp(c.field()).tieBreak(c.tieBreak()).initial(c.initial());
        if (c.format() != null) t.formatter(c.format());
        yield t.lag(c.lag()).overlap(c.overlap()).sorted(c.sorted()).build();
      }
      case "token" -> Cursors.token(c.initial());
      case "page" -> Cursors.page(c.initialPage() == null ? 1 : c.initialPage());
      default -> Cursors.snapshotDiff();
    };
  }

  /**
   * The identity at {@code pointer}, or an exception naming the pointer and what it found: the
   * engine parks such an item as invalid with that message and delivers the rest of the page
   * (docs/operations.md, "Invalid items").
   */
  private static JsonNode identity(Locator pointer, JsonNode item) {
    JsonNode id = pointer.find(item);
    if (id.isTextual() || id.isIntegralNumber()) return id;
    String problem;
    if (id.isMissingNode()) problem = "is not in the item";
    else if (id.isNull()) problem = "is null";
    else problem = "is " + YamlFetcher.kind(id) + ", not a string or a whole number";
    throw new IllegalArgumentException("identity " + YamlFetcher.show(pointer) + " " + problem);
  }

  private static @Nullable String keyText(JsonNode n) {
    if (n.isMissingNode() || n.isNull()) return null;
    return n.isValueNode() ? n.asText() : n.toString();
  }

  /**
   * The fetch of one YAML listing (a poller's own, or its reconcile): render the templates, GET,
   * pick items and paging by pointer or by the Link header.
   */
  static final class YamlFetcher {
    private final RequestSpec request;
    private final CliConfig.ResponseSpec response;
    private final Locator identity;
    // With response.pageInfo on a listing that starts over each cycle (snapshotDiff), page n
    // leaves its endCursor here for page n+1's {{cursor.value}}, per lane and partition.
    private final Map<String, String> endCursors = new ConcurrentHashMap<>();
    // The token strategy keeps endCursor as its cursor; any other starts over each cycle.
    private final boolean ownEndCursor;
    // With next: {url}, the engine's next-URL paging (the one a Java poller uses): it follows the
    // URL, keeps it for an export, and stalls on a URL that points at its own page.
    private final @Nullable NextUrlPaging nextUrl;
    // {{offset}} and {{last…}}, or null when the request uses neither.
    private final @Nullable OffsetPaging paging;
    // cursor.sorted false: the watermark stays put while a listing runs, so a Link or next URL is
    // followed, as on the other strategies (docs/config.md, "Unsorted listings").
    private final boolean unsorted;

    // Pointers that find nothing where a near name would: said once per poller and field.
    private final PointerChecks checks;
    // The config's secrets, hidden in the body excerpt before it is cut (a vendor may echo them).
    private final Function<@Nullable String, String> redact;

    YamlFetcher(
        RequestSpec request,
        CliConfig.ResponseSpec response,
        Locator identity,
        PointerChecks checks,
        @Nullable OffsetPaging paging,
        Function<@Nullable String, String> redact,
        boolean tokenCursor) {
      this(request, response, identity, checks, paging, redact, tokenCursor, false);
    }

    /**
     * A fetch whose listing is an unsorted timestamp one ({@code unsorted}): it follows a Link or
     * next URL from the previous page, since the watermark does not move between its pages.
     */
    YamlFetcher(
        RequestSpec request,
        CliConfig.ResponseSpec response,
        Locator identity,
        PointerChecks checks,
        @Nullable OffsetPaging paging,
        Function<@Nullable String, String> redact,
        boolean tokenCursor,
        boolean unsorted) {
      this.unsorted = unsorted;
      this.redact = redact;
      this.paging = paging;
      this.ownEndCursor = response.pageInfo() != null && !tokenCursor;
      this.request = request;
      this.response = response;
      this.identity = identity;
      this.checks = checks;
      NextLink link = response.nextUrl();
      // next: {header: Link} follows the same paging, so a Link loop (/a -> /b -> /a) stalls too.
      this.nextUrl =
          link != null
              ? (link.keep() ? NextUrlPaging.keep() : NextUrlPaging.startOver())
                  .label("response.next.url")
                  .unsorted(unsorted)
              : response.nextLink()
                  ? NextUrlPaging.startOver().label("Link rel=\"next\" URL").unsorted(unsorted)
                  : null;
    }

    Page<JsonNode> fetch(FetchContext<?> ctx) {
      Map<String, @Nullable String> vars = new HashMap<>();
      Object cursor = ctx.cursor();
      if (cursor instanceof Watermark w) {
        vars.put("cursor.value", w.value());
        vars.put("cursor.tieBreak", w.tieBreak());
      } else if (cursor instanceof Integer page) {
        vars.put("cursor.value", page.toString());
        vars.put("cursor.page", page.toString());
      } else if (cursor != null) {
        vars.put("cursor.value", cursor.toString());
      }
      vars.put("page", Integer.toString(ctx.page()));
      vars.put("partition", ctx.partition());
      String slot = ctx.lane().wire() + "|" + ctx.partition();
      if (paging != null) paging.render(ctx, cursor instanceof Watermark, vars);

      String configured = request.url().render(vars, YamlFetcher::encodePathValue, false);
      if (ownEndCursor) {
        String after = ctx.page() > 1 ? endCursors.get(slot) : null;
        if (ctx.page() == 1) endCursors.remove(slot);
        vars.put("cursor.value", after);
      }
      // A timestamp cursor builds every request from the watermark the last page left, and the
      // Link only says whether more exist. Following rel="next" instead walks offsets of a
      // listing filtered by the cycle's first watermark: a row updated between two requests
      // moves to the end, every row behind it moves up one place, and the row that crosses the
      // page boundary is never listed while the watermark passes it for good.
      // An unsorted listing (cursor.sorted false) keeps its filter for the whole listing: there
      // the Link or next URL is the paging, and its watermark moves only once the listing
      // completed. NextUrlPaging.unsorted(unsorted) makes that choice.
      NextLink link = response.nextUrl();
      // The URL the page before gave (next.url or the Link), or an export's stored cursor
      // (next.keep); null for the configured request.
      String followed = nextUrl != null ? nextUrl.next(ctx) : null;
      String url = followed == null ? configured : followed;
      RequestOptions.Builder options = RequestOptions.builder();
      if (followed == null) {
        request.query().forEach((name, t) -> options.query(name, t.render(vars, v -> v, true)));
      }
      // A Link may point at another host (a CDN, a vendor's API gateway): credentials stay home.
      if (followed == null || sameOrigin(followed, configured)) {
        request
            .headers()
            .forEach(
                (name, t) -> {
                  String value = t.render(vars, v -> v, true);
                  if (value != null) options.header(name, value);
                });
      }
      HttpResult result = send(ctx, url, options, vars);
      String where = result.method() + " " + result.url();
      JsonNode body =
          body(
              result,
              ResponseFormat.pick(response.format(), response.items(), result),
              where,
              redact);
      if (request.body().graphQl()) GraphQlPaging.checkErrors(body, where, redact);
      CliConfig.ResponseSpec r = response;
      JsonNode items = r.items().find(body);
      if (!items.isArray()) {
        throw new IllegalStateException(
            where
                + ": response.items "
                + show(r.items())
                + (items.isMissingNode()
                    ? " is not in the response"
                    : " is not an array (found " + kind(items) + ")"));
      }
      List<JsonNode> list = new ArrayList<>(items.size());
      items.forEach(list::add);
      checks.items(list);
      checks.response(body);
      Page<JsonNode> page = Page.of(list);
      if (r.pageInfo() != null) {
        GraphQlPaging.Step step = GraphQlPaging.read(r.pageInfo(), body, where);
        page = page.withHasMore(step.hasNextPage());
        if (ownEndCursor) {
          if (step.endCursor() != null) endCursors.put(slot, step.endCursor());
        } else {
          // Without an endCursor the token just sent stays: the next cycle asks after it again.
          page = page.withCursor(step.endCursor() != null ? step.endCursor() : cursor);
        }
      } else if (r.nextLink()) {
        // Followed by the next request unless the lane builds it from the watermark; one already
        // read in this listing stalls the lane before the next request.
        String next = LinkHeader.next(result.headers().get("link"));
        page = Objects.requireNonNull(nextUrl).read(ctx, page, url, result, next, false);
      } else if (link != null && nextUrl != null) {
        // The URL is followed by the next request, or, with keep, is the page's cursor (the last
        // one is stored); one that is the page's own stalls the lane before the next request.
        NextLink.Next n = link.read(body, where);
        page = nextUrl.read(ctx, page, url, result, n.url(), n.ended());
      } else if (r.hasMoreNonEmpty()) {
        page = page.withHasMore(!list.isEmpty());
      } else if (r.hasMore() != null) {
        JsonNode more = r.hasMore().find(body);
        // A pointer that finds nothing must not read as "no more pages": a full scan would take
        // page 1 for the whole listing and report everything else deleted.
        if (more.isMissingNode())
          throw new IllegalStateException(
              where
                  + ": response.hasMore "
                  + show(r.hasMore())
                  + " is not in the response; fix the pointer (the page is not committed)");
        if (!more.isNull() && !more.isBoolean()) {
          throw new IllegalStateException(
              where
                  + ": response.hasMore "
                  + show(r.hasMore())
                  + " is not a boolean (found "
                  + kind(more)
                  + ")");
        }
        page = page.withHasMore(more.isBoolean() && more.booleanValue());
      }
      if (r.total() != null) page = withTotal(page, r.total(), body, where);
      if (r.totalHeader() != null) page = TotalHeader.read(page, r.totalHeader(), result, where);
      if (paging != null) page = paging.read(ctx, page, where);
      if (r.next() != null) {
        JsonNode next = r.next().find(body);
        // A token pointer that finds nothing ends the listing: with more pages announced, that is
        // a typo that would read page 1 forever, not an end (docs/operations.md, "Pointer typos").
        if ((next.isMissingNode() || next.isNull()) && Boolean.TRUE.equals(page.hasMore())) {
          String guess = PointerChecks.didYouMean(r.next(), body);
          throw new IllegalStateException(
              where
                  + ": response.next "
                  + show(r.next())
                  + " is not in the response although response.hasMore says more pages follow"
                  + (guess == null ? "" : "; did you mean " + guess + "?")
                  + "; fix the pointer (the page is not committed)");
        }
        page =
            page.withCursor(
                next.isMissingNode() || next.isNull()
                    ? null
                    : next.isTextual() ? next.textValue() : next.toString());
      }
      return page;
    }

    /**
     * GET, or POST / PUT with the rendered body; the body's content type unless a header sets one.
     */
    private HttpResult send(
        FetchContext<?> ctx,
        String url,
        RequestOptions.Builder options,
        Map<String, @Nullable String> vars) {
      RequestBody b = request.body();
      if (b.method().equals("GET")) return ctx.http().get(url, options.build());
      String text = b.render(vars);
      RequestOptions built = options.build();
      if (text != null && built.header("Content-Type").isEmpty()) {
        built = options.header("Content-Type", b.contentType()).build();
      }
      return b.method().equals("PUT")
          ? ctx.http().put(url, text, built)
          : ctx.http().post(url, text, built);
    }

    /** The page with {@code response.total}: a whole number, or nothing when absent or null. */
    private static Page<JsonNode> withTotal(
        Page<JsonNode> page, Locator total, JsonNode body, String where) {
      JsonNode n = total.find(body);
      if (n.isMissingNode() || n.isNull()) return page;
      if (!n.isIntegralNumber() || n.longValue() < 0)
        throw new IllegalStateException(
            where
                + ": response.total "
                + show(total)
                + " is not a whole number of at least 0 (found "
                + kind(n)
                + " "
                + n
                + ")");
      return page.withTotal(n.longValue());
    }

    /**
     * The body as JSON, parsed from its bytes. A body that is no JSON at all is named by its type
     * and first characters (never binary bytes), secrets hidden before the excerpt is cut; JSON
     * that is refused for what it holds (a repeated key, a second document, a value over a parser
     * limit) by the engine's message, which says what and where.
     */
    private static JsonNode body(
        HttpResult result,
        BodyFormat format,
        String where,
        Function<@Nullable String, String> redact) {
      JsonNode json;
      try {
        json = result.tree(format);
      } catch (UncheckedIOException e) {
        // Another format's message names the format, what is wrong, where, and the body's start.
        if (format != BodyFormat.json() || !notJson(e)) {
          throw new IllegalStateException(e.getMessage(), e);
        }
        String type = result.header("Content-Type");
        if (type != null) type = redact.apply(type);
        // bodyExcerpt redacts the engine's secrets before it cuts; the config's are hidden again
        // here for a result the engine did not make.
        String start = redact.apply(result.bodyExcerpt(60));
        throw new IllegalStateException(
            where
                + ": the response is not JSON (HTTP "
                + result.status()
                + (type == null ? "" : ", Content-Type " + type)
                + (start.startsWith("binary body")
                    ? ", " + start + ")"
                    : ", body starts '" + start + "')"),
            e);
      }
      // A 204, or a 200 without content, has no listing: say so rather than blame a pointer.
      if (json.isMissingNode()) {
        throw new IllegalStateException(
            where + ": the response body is empty (HTTP " + result.status() + ")");
      }
      return json;
    }

    /** Whether the parser found a syntax error: the body is no JSON, not JSON refused. */
    private static boolean notJson(UncheckedIOException e) {
      for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
        if (t instanceof StreamConstraintsException) return false;
        if (t instanceof JsonParseException p) {
          String m = p.getOriginalMessage();
          return m == null || !m.startsWith("Duplicate field");
        }
        if (t.getCause() == t) break;
      }
      return false;
    }

    /** Same scheme, host and port (the default port of the scheme when none is given). */
    static boolean sameOrigin(String a, String b) {
      return NextUrlPaging.sameOrigin(a, b);
    }

    private static String encodePathValue(String v) {
      return URLEncoder.encode(v, StandardCharsets.UTF_8).replace("+", "%20");
    }

    static String kind(JsonNode n) {
      if (n.isMissingNode()) return "nothing";
      return switch (n.getNodeType()) {
        case OBJECT, POJO -> "an object";
        case ARRAY -> "an array";
        case STRING -> "a string";
        case NUMBER -> "a number";
        case BOOLEAN -> "a boolean";
        case NULL -> "null";
        default -> "nothing";
      };
    }

    /** A locator as the config wrote it; {@code ""} (the body itself) is quoted to be visible. */
    static String show(Locator l) {
      return l.spec().isEmpty() ? "\"\" (the body)" : l.spec();
    }
  }
}
