package io.watukuy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.HttpResult;
import io.watukuy.Page;
import io.watukuy.cli.ConfigReader.At;
import org.jspecify.annotations.Nullable;

/**
 * {@code response.total: {header: NAME}}: the listing's size from a response header ({@code
 * X-Total-Count} at json-server and many Rails and Express APIs) rather than the body
 * (docs/config.md, "Offset paging").
 */
final class TotalHeader {
  private TotalHeader() {}

  /**
   * The header name of {@code total: {header: NAME}}.
   *
   * @return the name, or null when {@code total} is absent or a pointer
   * @throws io.watukuy.ConfigException naming the file, line, poller and key when the map is not
   *     {@code {header: NAME}}
   */
  static @Nullable String parse(At total) {
    if (!total.node.isObject()) return null;
    total.object("header");
    At header = total.child("header");
    String name = header.string(null);
    if (name == null || name.isBlank())
      throw total.error("header: missing (the header that holds the total, e.g. X-Total-Count)");
    return name.trim();
  }

  /**
   * The page with the total the header holds; the page as it is when the header is absent.
   *
   * @throws IllegalStateException when the header is not a whole number of at least 0, naming it
   *     and its value: the page is not committed
   */
  static Page<JsonNode> read(Page<JsonNode> page, String name, HttpResult result, String where) {
    String value = result.header(name);
    if (value == null) return page;
    try {
      long total = Long.parseLong(value.trim());
      if (total >= 0) return page.withTotal(total);
    } catch (NumberFormatException e) {
      // said below, with the value
    }
    throw new IllegalStateException(
        where
            + ": response.total header "
            + name
            + " is '"
            + value
            + "', not a whole number of at least 0");
  }
}
