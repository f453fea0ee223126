package io.watukuy.cli;

import io.watukuy.cli.CliConfig.CursorSpec;
import io.watukuy.cli.CliConfig.RequestSpec;
import io.watukuy.cli.CliConfig.ResponseSpec;
import io.watukuy.cli.ConfigReader.At;
import java.util.Iterator;
import org.jspecify.annotations.Nullable;

/**
 * The ways a listing pages that cannot go together (docs/config.md, "Next URL in the body", "Offset
 * paging"): a listing pages one way, by {@code {{page}}}, {@code {{offset}}}, {@code {{last…}}}, a
 * token, a Link header or a URL in the body; {@code keep: true} needs the token strategy, which
 * stores the URL; {@code cursor.maxOffset} needs {@code {{offset}}}. Each error names the key and
 * the value, at the line that holds it.
 */
final class PagingRules {
  private PagingRules() {}

  /**
   * Checks a listing: the poller's own, or, with a null {@code cursor}, its reconcile.
   *
   * @param listing the node holding {@code request:}, {@code response:} and {@code cursor:}
   * @param cursor the poller's cursor, or null for a reconcile listing
   * @throws io.watukuy.ConfigException naming the file, line, poller, key and value of the first
   *     conflict
   */
  static void check(
      At listing, RequestSpec request, ResponseSpec response, @Nullable CursorSpec cursor) {
    At next = listing.child("response").child("next");
    String strategy = cursor == null ? null : cursor.strategy();
    NextLink url = response.nextUrl();
    if (url != null && url.keep() && !"token".equals(strategy))
      throw next.child("keep")
          .error(
              "true needs cursor.strategy token, which stores the last URL as the cursor"
                  + (strategy == null ? "" : " (this poller's strategy is " + strategy + ")"));
    if (url != null && !url.keep() && "token".equals(strategy))
      throw next.error(
          "{url: "
              + url.url()
              + "} with the token strategy: set keep: true to start the next cycle at the last"
              + " URL, or use strategy page or snapshotDiff to start over every cycle");
    if (cursor != null && !cursor.sorted()) unsorted(listing, request, response, cursor);
    String offset = "{{" + OffsetPaging.OFFSET + "}}";
    String last = null;
    for (String name : OffsetPaging.variables(request))
      if (name.startsWith(OffsetPaging.LAST)) last = "{{" + name + "}}";
    boolean usesOffset = request.uses(OffsetPaging.OFFSET);
    At requestAt = listing.child("request");
    if (cursor != null && cursor.maxOffset() != null && !usesOffset)
      throw listing
          .child("cursor")
          .child("maxOffset")
          .error(
              "'"
                  + cursor.maxOffset()
                  + "': the request does not page by {{offset}}, so there is no offset to cap");
    if (!usesOffset && last == null) return;
    String paging = usesOffset ? offset : last;
    At where =
        holder(requestAt, usesOffset ? OffsetPaging.OFFSET : last.substring(2, last.length() - 2));
    if (usesOffset && last != null)
      throw where.error(offset + " and " + last + ": a listing pages one way, pick one");
    for (String page : new String[] {"page", "cursor.page"})
      if (request.uses(page))
        throw holder(requestAt, page)
            .error("{{" + page + "}} with " + paging + ": a listing pages one way, pick one");
    if (response.next() != null || response.nextLink() || url != null)
      throw next.error(
          "'"
              + (next.node.isTextual() ? next.node.textValue() : next.node.toString())
              + "': the request pages by "
              + paging
              + ", so a next token, Link or URL would page it a second way; remove one");
    if ("token".equals(strategy))
      throw where.error(paging + " with cursor.strategy token, which pages by response.next");
    if (last != null && "timestamp".equals(strategy))
      throw where.error(
          last
              + " with cursor.strategy timestamp, whose watermark already pages past the last"
              + " item; use {{cursor.value}} and {{cursor.tieBreak}}");
  }

  /**
   * {@code cursor.sorted: false} (docs/config.md, "Unsorted listings") keeps the stored watermark
   * where the listing started until its last page, so the request must page without it: by {@code
   * {{page}}}, {@code {{offset}}}, a Link header or a next URL. A request that pages by {@code
   * {{cursor.value}}} alone, a token from the response, a GraphQL endCursor or {@code maxOffset}
   * (which starts each new query from the watermark) would ask for page 1 again and again.
   */
  private static void unsorted(
      At listing, RequestSpec request, ResponseSpec response, CursorSpec cursor) {
    At at = listing.child("cursor");
    String only =
        "; an unsorted listing moves its watermark only when the whole listing has completed."
            + " Page by {{page}}, {{offset}}, next: {header: Link} or next: {url: ...}, or remove"
            + " cursor.sorted";
    if (cursor.maxOffset() != null)
      throw at.child("maxOffset")
          .error(
              "'"
                  + cursor.maxOffset()
                  + "' with cursor.sorted false: maxOffset starts each new query from the"
                  + " watermark the pages before it committed, so the new query would repeat the"
                  + " first"
                  + only);
    At next = listing.child("response").child("next");
    if (response.next() != null)
      throw next.error(
          "'"
              + (next.node.isTextual() ? next.node.textValue() : next.node.toString())
              + "' with cursor.sorted false: a token from the response moves the watermark"
              + " between pages"
              + only);
    if (response.pageInfo() != null)
      throw listing
          .child("response")
          .child("pageInfo")
          .error(
              "with cursor.sorted false: a GraphQL endCursor moves the cursor between pages"
                  + only);
    boolean pages =
        request.uses("page")
            || request.uses(OffsetPaging.OFFSET)
            || response.nextLink()
            || response.nextUrl() != null;
    if (!pages)
      throw at.child("sorted")
          .error(
              "false with a request that pages by {{cursor.value}} alone: each page would ask"
                  + " from the last page's watermark, which does not move while the listing runs,"
                  + " so every page would be page 1 again"
                  + only);
  }

  /** The URL, header or query value that holds {@code {{name}}}, or the request itself. */
  private static At holder(At request, String name) {
    At url = request.child("url");
    if (!url.missing() && url.node.isTextual() && Template.parse(url.node.textValue()).uses(name))
      return url;
    for (String section : new String[] {"headers", "query"}) {
      At map = request.child(section);
      if (!map.node.isObject()) continue;
      for (Iterator<String> it = map.node.fieldNames(); it.hasNext(); ) {
        At value = map.child(it.next());
        if (value.node.isTextual()
            && value.node.textValue().contains("{{")
            && Template.parse(value.node.textValue()).uses(name)) return value;
      }
    }
    return request;
  }
}
