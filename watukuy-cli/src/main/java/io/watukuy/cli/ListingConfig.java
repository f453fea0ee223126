package io.watukuy.cli;

import io.watukuy.cli.CliConfig.CursorSpec;
import io.watukuy.cli.CliConfig.ReconcileSpec;
import io.watukuy.cli.CliConfig.RequestSpec;
import io.watukuy.cli.CliConfig.ResponseSpec;
import io.watukuy.cli.ConfigReader.At;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The sections of a poller that say how its listing is fetched and read ({@code request:}, {@code
 * response:}, {@code reconcile:}; docs/config.md, "A poller"). A reconcile listing has a request
 * and a response of its own, read by the same code. Apart from {@link ConfigReader}, which reads
 * the config's shape.
 */
final class ListingConfig {
  private ListingConfig() {}

  /**
   * {@code request: {url, method, headers, query, body, form, graphql, timeout, maxBodySize}}: a
   * GET, POST or PUT to an absolute http(s) URL; the URL, headers, query and body are templates
   * ({@code {{cursor.value}}}, {@code {{partition}}}, ...) that may also read {@code ${ENV}}. The
   * method and body are read by {@link RequestBody}.
   *
   * @throws io.watukuy.ConfigException naming the file, line, poller and key of the first error
   */
  static RequestSpec request(At request) {
    request.object(
        "url", "method", "headers", "query", "body", "form", "graphql", "timeout", "maxBodySize");
    RequestBody body = RequestBody.read(request);
    At urlAt = request.child("url");
    if (urlAt.missing()) throw request.error("url: missing");
    Template url = urlAt.template();
    String literal = url.toString();
    if (!literal.startsWith("http://") && !literal.startsWith("https://")) {
      throw urlAt.error("must be an absolute http:// or https:// URL");
    }
    Map<String, Template> headers = request.child("headers").templates();
    Map<String, Template> query = request.child("query").templates();
    Duration timeout = request.child("timeout").duration(null);
    Long maxBodySize = request.child("maxBodySize").size();
    return new RequestSpec(url, headers, query, timeout, maxBodySize, body);
  }

  /**
   * {@code response: {items, hasMore, next, total, pageInfo}}: where the items, the more-pages
   * flag, the next token (or {@code {header: Link}}, or {@code {url, end, keep}}: {@link
   * NextLink}), the total and a GraphQL {@code pageInfo} are in a page.
   *
   * @throws io.watukuy.ConfigException naming the file, line, poller and key of the first error
   */
  static ResponseSpec response(At response) {
    response.object("items", "hasMore", "next", "total", "pageInfo", "format", "csv");
    ResponseSpec spec = paging(response);
    return spec.withFormat(ResponseFormat.read(response, spec.items()));
  }

  /** {@link #response} without {@code format} and {@code csv} (a null format, set after). */
  private static ResponseSpec paging(At response) {
    At totalAt = response.child("total");
    String totalHeader = TotalHeader.parse(totalAt);
    Locator total = totalAt.missing() || totalHeader != null ? null : totalAt.locator();
    At itemsAt = response.child("items");
    if (itemsAt.missing())
      throw response.error("items: missing (a JSON Pointer, \"\" for the body itself)");
    Locator items = itemsAt.locator();
    At hasMoreAt = response.child("hasMore");
    boolean nonEmpty = hasMoreAt.node.isTextual() && hasMoreAt.node.textValue().equals("nonEmpty");
    Locator hasMore = hasMoreAt.missing() || nonEmpty ? null : hasMoreAt.locator();
    At nextAt = response.child("next");
    if (nextAt.node.isObject() && nextAt.node.has("url")) {
      NextLink link = NextLink.parse(nextAt, hasMoreAt);
      return GraphQlConfig.pageInfo(
          response,
          new ResponseSpec(items, null, false, null, false, total, null, link, totalHeader, null));
    }
    if (nextAt.node.isObject()) {
      nextAt.object("header");
      At header = nextAt.child("header");
      if (header.missing())
        throw nextAt.error(
            "header: missing ({header: Link}, or {url: POINTER} for a URL in the body)");
      if (!"link".equalsIgnoreCase(header.string(""))) {
        throw header.error("'" + header.node.asText() + "': only the Link header is supported");
      }
      if (!hasMoreAt.missing()) {
        throw hasMoreAt.error(
            "must be omitted with next: {header: Link}, whose rel=\"next\" link says"
                + " whether more pages exist");
      }
      return GraphQlConfig.pageInfo(
          response,
          new ResponseSpec(items, null, false, null, true, total, null, null, totalHeader, null));
    }
    Locator next = nextAt.missing() ? null : nextAt.locator();
    return GraphQlConfig.pageInfo(
        response,
        new ResponseSpec(
            items, hasMore, nonEmpty, next, false, total, null, null, totalHeader, null));
  }

  /**
   * {@code reconcile: {every, request, response}}: a full listing paged by {@code {{page}}} or a
   * Link header, run every {@code every} beside the poller's cursor; not with snapshotDiff.
   *
   * @return the reconcile settings, or null when the poller has no {@code reconcile:}
   * @throws io.watukuy.ConfigException naming the file, line, poller and key of the first error
   */
  static @Nullable ReconcileSpec reconcile(At at, CursorSpec cursor) {
    if (at.missing()) return null;
    if (cursor.strategy().equals("snapshotDiff")) {
      throw at.error(
          "not with cursor.strategy snapshotDiff, which lists everything every cycle already");
    }
    at.object("every", "request", "response");
    At every = at.child("every");
    if (every.missing()) throw at.error("every: missing (a duration, e.g. 6h)");
    Duration interval = every.duration(null);
    if (interval.isZero()) throw every.error("must be longer than 0");
    At request = at.child("request");
    if (request.missing()) throw at.error("request: missing (url and query, paged by {{page}})");
    RequestSpec requestSpec = request(request);
    if (!request.child("maxBodySize").missing()) {
      // One bound for the poller: the engine applies it to every request, the listing's too.
      throw request
          .child("maxBodySize")
          .error("set it on the poller's request: it bounds every request of the poller");
    }
    At response = at.child("response");
    if (response.missing()) throw at.error("response: missing (at least items)");
    ResponseSpec responseSpec = response(response);
    if (responseSpec.pageInfo() != null) {
      throw response
          .child("pageInfo")
          .error("a reconcile listing pages by {{page}} or {header: Link}, not by pageInfo");
    }
    if (responseSpec.next() != null) {
      throw response
          .child("next")
          .error("a reconcile listing pages by {{page}} or {header: Link}, not by a token");
    }
    if (responseSpec.nextUrl() != null && responseSpec.nextUrl().keep()) {
      throw response
          .child("next")
          .child("keep")
          .error("a reconcile listing starts over every time: it keeps no URL");
    }
    return new ReconcileSpec(interval, requestSpec, responseSpec);
  }
}
