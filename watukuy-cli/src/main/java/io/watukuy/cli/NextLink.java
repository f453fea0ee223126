package io.watukuy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.cli.ConfigReader.At;
import org.jspecify.annotations.Nullable;

/**
 * {@code response.next: {url, end, keep}}: the URL of the next page in the body ({@code
 * /links/next}, {@code /@odata.nextLink}, {@code /paging/next}); docs/config.md, "Next URL in the
 * body". The URL is followed verbatim, a relative one resolved against the URL of the page it came
 * with. {@code end} points at a flag that ends the listing even where a URL is present; with {@code
 * keep: true} the listing is an export and its last URL is the stored cursor (token strategy) where
 * the next cycle starts, otherwise every cycle starts over at {@code request.url}.
 *
 * @param url where the next page's URL is; absent, null or {@code ""} ends the listing
 * @param end where a boolean that ends the listing when true is, or null
 * @param keep whether the last URL is kept as the cursor for the next cycle
 */
record NextLink(Locator url, @Nullable Locator end, boolean keep) {

  /**
   * Reads {@code next: {url, end, keep}}.
   *
   * @param next the {@code next:} node, an object with {@code url}
   * @param hasMore the {@code hasMore:} node beside it, which must be absent: the URL says whether
   *     more pages exist
   * @throws io.watukuy.ConfigException naming the file, line, poller, key and value
   */
  static NextLink parse(At next, At hasMore) {
    next.object("url", "end", "keep");
    At url = next.child("url");
    if (url.missing())
      throw next.error("url: missing (a JSON Pointer to the next page's URL, e.g. /links/next)");
    if (!hasMore.missing())
      throw hasMore.error(
          "'"
              + hasMore.node.asText()
              + "': must be omitted with next: {url: "
              + url.node.asText()
              + "}, whose URL says whether more pages exist (use next.end for an end flag)");
    At end = next.child("end");
    return new NextLink(
        url.locator(), end.missing() ? null : end.locator(), next.child("keep").bool(false));
  }

  /** What one page said about the next: the URL as written (maybe relative), and the end flag. */
  record Next(@Nullable String url, boolean ended) {}

  /**
   * The next URL and the end flag of a page.
   *
   * @param body the page's JSON body
   * @param where the request, for messages ({@code GET https://…})
   * @throws IllegalStateException when the URL is not a string, or the end flag is there but not a
   *     boolean: the page is not committed, since reading it as "no more pages" would end a listing
   *     early
   */
  Next read(JsonNode body, String where) {
    JsonNode n = url.find(body);
    String next = null;
    if (n.isTextual() && !n.textValue().isBlank()) next = n.textValue().trim();
    else if (!n.isMissingNode() && !n.isNull() && !n.isTextual())
      throw new IllegalStateException(
          where
              + ": response.next.url "
              + YamlPollers.YamlFetcher.show(url)
              + " is "
              + YamlPollers.YamlFetcher.kind(n)
              + ", not a URL");
    boolean ended = false;
    if (end != null) {
      JsonNode e = end.find(body);
      if (!e.isMissingNode() && !e.isNull() && !e.isBoolean())
        throw new IllegalStateException(
            where
                + ": response.next.end "
                + YamlPollers.YamlFetcher.show(end)
                + " is "
                + YamlPollers.YamlFetcher.kind(e)
                + " "
                + e
                + ", not a boolean");
      ended = e.isBoolean() && e.booleanValue();
    }
    return new Next(next, ended || next == null);
  }
}
