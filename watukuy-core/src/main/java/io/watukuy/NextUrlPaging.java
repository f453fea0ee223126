package io.watukuy;

import io.watukuy.internal.http.Redactor;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Paging by a next-page URL the response gives ({@code links.next} in JSON:API, {@code
 * "@odata.nextLink"} in Microsoft Graph and OData, {@code paging.next} in the Facebook Graph API,
 * the {@code after_url} of an export): docs/architecture.md, "Paging shapes from Java", the Java
 * side of docs/config.md, "Next URL in the body". One instance per listing (a poller's fetch, or
 * its reconcile's); thread-safe, with its state kept per lane and partition.
 *
 * <pre>{@code
 * NextUrlPaging paging = NextUrlPaging.startOver();
 * Poller.builder("users", JsonNode.class)
 *     .cursor(Cursors.snapshotDiff())
 *     .fetch(ctx -> {
 *       String followed = paging.next(ctx);             // null on the first page of a cycle
 *       String url = followed != null ? followed : "https://graph.example.com/v1.0/users?$top=100";
 *       HttpResult r = ctx.http().get(url);
 *       JsonNode body = r.json();
 *       return paging.read(ctx, Page.of(items(body)), url, r, body.at("/@odata.nextLink").asText(null), false);
 *     })
 * }</pre>
 *
 * <ul>
 *   <li>The first request of a cycle is the application's own URL (with its query); every later one
 *       is the URL the page before it gave, followed verbatim. A relative URL ({@code
 *       /users?page=2}, {@code ?cursor=abc}) resolves against the URL of the page it came with (RFC
 *       3986; see {@link #resolve}). Credentials belong to the first URL's origin: check {@link
 *       #sameOrigin} before sending them along.
 *   <li>{@link #startOver()}: a listing that starts over at its first URL every cycle ({@code
 *       snapshotDiff}, {@code page} or {@code custom} strategies). {@link #keep()}: an export whose
 *       last URL is the stored cursor of a {@code token} strategy, where the next cycle starts.
 *   <li>On a {@code timestamp} lane (the cursor is a {@link Watermark}) the URL is never followed:
 *       each request is built from the watermark the page before it left, and the URL only says
 *       whether more pages exist. Following it would walk offsets of a listing filtered by the
 *       cycle's first watermark, and a row updated between two requests could be skipped. An
 *       unsorted listing ({@link #unsorted(boolean)}) is the exception: its watermark stays put
 *       until the listing completes, so the URL is its paging.
 *   <li>A URL already read in this listing (the page's own, or an earlier page's, as in {@code /a
 *       -> /b -> /a}) would read those pages forever, up to {@code maxPagesPerCycle} every cycle:
 *       the page is committed, and {@link #next} throws a {@code PageRepeated} {@link
 *       FetchException} naming the URL and the page that first had it instead of returning it
 *       (docs/operations.md, "Stalled lanes"). The URLs read are remembered per lane and partition,
 *       one per page, and forgotten when page 1 starts the next listing.
 * </ul>
 *
 * @since 0.1
 */
public final class NextUrlPaging {
  /** The default name of the URL in messages. */
  public static final String DEFAULT_LABEL = "next URL";

  private final boolean keep;
  private final String label;
  // Follows the URL on a timestamp lane too: an unsorted listing keeps its watermark throughout.
  private final boolean unsorted;
  // The URL page n leaves for page n + 1, per lane and partition: the engine fetches a key's pages
  // one after another, so a key never races with itself.
  private final Map<String, String> nextUrls = new ConcurrentHashMap<>();
  // The URLs this listing has read so far, each with the first page read from it, per lane and
  // partition: replaced on page 1, so it holds at most one entry per page of the cycle (bounded by
  // maxPagesPerCycle). A next URL found here would read those pages again, in a loop.
  private final Map<String, Map<String, Integer>> readUrls = new ConcurrentHashMap<>();
  // A next URL already read in this listing, with the page that first had it, per lane and
  // partition: the request for the page after it is not sent.
  private final Map<String, Repeat> repeats = new ConcurrentHashMap<>();

  private record Repeat(String url, int firstPage) {}

  // The URL the current page follows (absent: the application's first URL).
  private final Map<String, String> followed = new ConcurrentHashMap<>();

  private NextUrlPaging(boolean keep, String label, boolean unsorted) {
    this.keep = keep;
    this.label = label;
    this.unsorted = unsorted;
  }

  /**
   * A listing that starts over at the application's first URL every cycle.
   *
   * @return new paging, named {@value #DEFAULT_LABEL} in messages
   */
  public static NextUrlPaging startOver() {
    return new NextUrlPaging(false, DEFAULT_LABEL, false);
  }

  /**
   * An export whose last URL is where the next cycle starts: use it with {@link Cursors#token()},
   * whose stored token is that URL. Every page's cursor is the URL after it; an empty page ends the
   * cycle and keeps the URL it was read from.
   *
   * @return new paging, named {@value #DEFAULT_LABEL} in messages
   */
  public static NextUrlPaging keep() {
    return new NextUrlPaging(true, DEFAULT_LABEL, false);
  }

  /**
   * The same paging with {@code label} naming the URL in messages (the field it is read from, e.g.
   * {@code /links/next}).
   *
   * @param label what the stall message calls the URL; not blank
   * @return a new instance with no state
   * @throws IllegalArgumentException if {@code label} is blank
   */
  public NextUrlPaging label(String label) {
    if (label.isBlank()) throw new IllegalArgumentException("label must not be blank");
    return new NextUrlPaging(keep, label, unsorted);
  }

  /**
   * The same paging for an unsorted timestamp listing ({@link
   * TimestampCursor.Builder#sorted(boolean) sorted(false)}, docs/config.md, "Unsorted listings"):
   * there the watermark stays where it was for the whole listing, so the URL is followed on a
   * timestamp lane as well.
   *
   * @param unsorted true when the poller's timestamp cursor is {@code sorted(false)}
   * @return a new instance with no state
   */
  public NextUrlPaging unsorted(boolean unsorted) {
    return new NextUrlPaging(keep, label, unsorted);
  }

  /**
   * Whether the last URL is kept as the cursor ({@link #keep()}).
   *
   * @return true for an export, false for a listing that starts over
   */
  public boolean keeps() {
    return keep;
  }

  /**
   * The URL to request for page {@code ctx.page()}: the one the page before it gave, or, with
   * {@link #keep()}, the stored cursor on a cycle's first page.
   *
   * @param ctx the fetch, for its lane, partition, page and cursor
   * @return the absolute URL to send as it is (no query added), or null when the request is the
   *     application's first URL
   * @throws FetchException {@code PageRepeated} when that URL was already read in this listing (the
   *     page before it, or an earlier one); the request must not be sent, and the pages before it
   *     are committed
   */
  public @Nullable String next(FetchContext<?> ctx) {
    String slot = slot(ctx);
    boolean first = ctx.page() == 1;
    String url = !first && follows(ctx) ? nextUrls.remove(slot) : null;
    if (first) nextUrls.remove(slot);
    if (keep && ctx.cursor() instanceof String kept && !kept.isEmpty()) url = kept;
    Repeat repeat = first ? null : repeats.remove(slot);
    if (first) repeats.remove(slot);
    if (repeat != null && repeat.url().equals(url)) throw repeated(ctx, repeat);
    if (url == null) followed.remove(slot);
    else followed.put(slot, url);
    return url;
  }

  /**
   * Gives the page its {@code hasMore} (and, with {@link #keep()}, its cursor) from the next URL it
   * carried, and keeps that URL for the next request.
   *
   * @param ctx the same fetch {@link #next} was called for
   * @param page the page's items (and tombstones, total)
   * @param requested the URL sent, as the application knows it (it resolves relative URLs); ignored
   *     when {@link #next} returned one
   * @param result the response, whose {@link HttpResult#url()} (query included) is the page's URL
   *     when {@link #next} returned null
   * @param next the next URL as the body holds it, maybe relative; null or blank ends the listing
   * @param ended an end flag the body holds ({@code end_of_stream}): true ends the listing even
   *     where a URL is present
   * @return the page with {@code hasMore} set: true while a URL is there and the end flag is not
   *     set (false on an empty page of an export)
   * @throws IllegalStateException when the URL is not a URL, or not http(s): the page must not be
   *     committed, since reading it as the end would end a listing early
   */
  public <T> Page<T> read(
      FetchContext<?> ctx,
      Page<T> page,
      String requested,
      HttpResult result,
      @Nullable String next,
      boolean ended) {
    String slot = slot(ctx);
    String from = followed.get(slot);
    String base = from != null ? from : requested;
    String resolved =
        next == null || next.isBlank() ? null : resolve(base, next.trim(), result, label);
    // The URL this page was read from; a first request's query may have been added by Http.
    String read = from != null ? from : result.url();
    boolean more = !ended && resolved != null && !(keep && page.items().isEmpty());
    boolean follows = follows(ctx);
    Map<String, Integer> urls =
        ctx.page() == 1
            ? new LinkedHashMap<>()
            : readUrls.computeIfAbsent(slot, s -> new LinkedHashMap<>());
    urls.putIfAbsent(read, ctx.page());
    readUrls.put(slot, urls);
    Integer firstPage = resolved == null ? null : urls.get(resolved);
    if (more && !page.items().isEmpty() && firstPage != null && (follows || keep))
      repeats.put(slot, new Repeat(resolved, firstPage));
    if (keep) return page.withCursor(resolved != null ? resolved : from).withHasMore(more);
    if (more && follows) nextUrls.put(slot, resolved);
    return page.withHasMore(more);
  }

  /**
   * {@code next} as an absolute URL: RFC 3986 resolution against {@code base}, where a reference
   * that is only a query ({@code ?page=2}) keeps the base's path ({@link URI#resolve} follows RFC
   * 2396 and would drop it).
   *
   * @param base the URL of the page the reference came with
   * @param next an absolute or relative URL
   * @return the absolute http(s) URL
   * @throws IllegalArgumentException when either is not a URL, or the result is not http(s)
   */
  public static String resolve(String base, String next) {
    try {
      return resolved(base, next);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(next + " is not a URL: " + e.getMessage(), e);
    }
  }

  /**
   * Whether two URLs share scheme, host and port (the scheme's default port when none is given):
   * the configured credentials go along only to the first URL's origin.
   *
   * @param a an absolute URL
   * @param b another
   * @return true when both parse and agree; false otherwise
   */
  public static boolean sameOrigin(String a, String b) {
    try {
      URI x = new URI(a);
      URI y = new URI(b);
      return x.getScheme() != null
          && x.getHost() != null
          && x.getScheme().equalsIgnoreCase(y.getScheme())
          && x.getHost().equalsIgnoreCase(y.getHost())
          && port(x) == port(y);
    } catch (URISyntaxException e) {
      return false;
    }
  }

  /**
   * {@code next} resolved against {@code base}, with a failure named after the request.
   *
   * @param what what the URL is called in the message (e.g. {@code the Link rel="next" URL})
   * @throws IllegalStateException naming the request and the URL when it is not an http(s) URL
   */
  static String resolve(String base, String next, HttpResult result, String what) {
    try {
      return resolved(base, next);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(
          result.method() + " " + result.url() + ": " + what + " is not a URL: " + e.getMessage(),
          e);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          result.method() + " " + result.url() + ": " + what + " is not http(s): " + next, e);
    }
  }

  private static String resolved(String base, String next) throws URISyntaxException {
    URI uri =
        next.startsWith("?")
            ? new URI(base.replaceFirst("[?#].*$", "") + next)
            : new URI(base).resolve(new URI(next));
    String scheme = uri.getScheme();
    if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https")))
      throw new IllegalArgumentException(next + " is not http(s)");
    return uri.toString();
  }

  private static int port(URI u) {
    if (u.getPort() >= 0) return u.getPort();
    return "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
  }

  private boolean follows(FetchContext<?> ctx) {
    return unsorted || !(ctx.cursor() instanceof Watermark);
  }

  static String slot(FetchContext<?> ctx) {
    return ctx.lane().wire() + "|" + ctx.partition();
  }

  /**
   * The stall of a next URL already read in this listing: the page's own (a self-link), or an
   * earlier page's (a loop such as {@code /a -> /b -> /a}); docs/operations.md, "Stalled lanes".
   */
  private FetchException repeated(FetchContext<?> ctx, Repeat repeat) {
    int last = ctx.page() - 1;
    String url = Redactor.NONE.url(repeat.url());
    String what =
        repeat.firstPage() == last
            ? " is the URL that page was read from ("
                + url
                + "), so the request for page "
                + ctx.page()
                + " would repeat it"
            : " is "
                + url
                + ", which page "
                + repeat.firstPage()
                + " was read from, so the request for page "
                + ctx.page()
                + " would read pages "
                + repeat.firstPage()
                + " to "
                + last
                + " again, in a loop";
    return FetchException.pageRepeated(
        ctx,
        "the "
            + label
            + " of page "
            + last
            + what
            + "; check that "
            + label
            + " points at the next page's URL");
  }
}
