package io.watukuy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * What a GraphQL response says beyond its items (docs/config.md, "GraphQL"): the {@code errors} a
 * server reports with HTTP 200, and the Relay {@code pageInfo {endCursor, hasNextPage}} at {@code
 * response.pageInfo} that pages a connection.
 */
final class GraphQlPaging {
  /** The longest part of a server's error message quoted in a fetch error, in characters. */
  static final int MAX_MESSAGE = 300;

  private GraphQlPaging() {}

  /**
   * Where the listing goes after a page.
   *
   * @param endCursor the cursor to ask {@code after}, or null when the page has none (the end)
   * @param hasNextPage whether the server says more pages follow; false whenever {@code endCursor}
   *     is null
   */
  record Step(@Nullable String endCursor, boolean hasNextPage) {}

  /**
   * Throws when the response holds a non-empty {@code errors}: a GraphQL server answers a query it
   * could not run (a field that does not exist, a bad argument, a resolver that failed) with HTTP
   * 200, and a page taken from {@code data} then would be empty or partial.
   *
   * @param where the method and URL, for the message
   * @param redact hides the config's secrets, before the message is cut
   * @throws IllegalStateException quoting the first error's message (redacted, at most {@value
   *     #MAX_MESSAGE} characters) and how many more there are; the page is not committed
   */
  static void checkErrors(JsonNode body, String where, Function<@Nullable String, String> redact) {
    JsonNode errors = body.path("errors");
    if (errors.isMissingNode() || errors.isNull() || (errors.isArray() && errors.isEmpty())) return;
    JsonNode first = errors.isArray() ? errors.get(0) : errors;
    JsonNode message = first.path("message");
    String text = message.isTextual() ? message.textValue() : first.toString();
    String more =
        errors.isArray() && errors.size() > 1 ? " (and " + (errors.size() - 1) + " more)" : "";
    throw new IllegalStateException(
        where + ": the GraphQL response has errors: '" + bounded(redact.apply(text)) + "'" + more);
  }

  /**
   * Reads {@code pageInfo} at {@code at}. A page without an {@code endCursor} (null or absent, as
   * servers answer for an empty connection) ends the listing, whatever {@code hasNextPage} says.
   *
   * @throws IllegalStateException when {@code pageInfo} is not in the response, or {@code
   *     hasNextPage} is there but not a boolean, or absent beside an {@code endCursor}; the page is
   *     not committed
   */
  static Step read(Locator at, JsonNode body, String where) {
    JsonNode info = at.find(body);
    if (!info.isObject()) {
      String guess = PointerChecks.didYouMean(at, body);
      throw new IllegalStateException(
          where
              + ": response.pageInfo "
              + YamlPollers.YamlFetcher.show(at)
              + (info.isMissingNode()
                  ? " is not in the response"
                  : " is not an object (found " + YamlPollers.YamlFetcher.kind(info) + ")")
              + (guess == null ? "" : "; did you mean " + guess + "?")
              + "; fix the pointer (the page is not committed)");
    }
    JsonNode end = info.path("endCursor");
    if (end.isMissingNode() || end.isNull()) return new Step(null, false);
    String cursor = end.isTextual() ? end.textValue() : end.toString();
    if (cursor.isEmpty()) return new Step(null, false);
    JsonNode more = info.path("hasNextPage");
    if (!more.isBoolean())
      throw new IllegalStateException(
          where
              + ": response.pageInfo "
              + YamlPollers.YamlFetcher.show(at)
              + " has no boolean hasNextPage (found "
              + YamlPollers.YamlFetcher.kind(more)
              + "); ask for pageInfo { endCursor hasNextPage } in the query");
    return new Step(cursor, more.booleanValue());
  }

  /** One line of at most {@value #MAX_MESSAGE} characters: a vendor's text is not ours to trust. */
  static String bounded(String text) {
    String line = text.replaceAll("\\p{Cntrl}+", " ").strip();
    return line.length() <= MAX_MESSAGE ? line : line.substring(0, MAX_MESSAGE) + "…";
  }
}
