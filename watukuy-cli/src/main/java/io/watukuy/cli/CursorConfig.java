package io.watukuy.cli;

import io.watukuy.PageCursor;
import io.watukuy.cli.CliConfig.CursorSpec;
import io.watukuy.cli.ConfigReader.At;
import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The {@code cursor:} section of a poller (docs/config.md, "A poller"): which strategy, and the
 * settings only the timestamp strategy takes. Apart from {@link ConfigReader}, which reads the
 * config's shape.
 */
final class CursorConfig {
  private CursorConfig() {}

  /**
   * {@code cursor: {strategy, field, tieBreak, initial, lag, overlap, format, zone, maxOffset,
   * sorted}}: the strategy and its own settings; the keys of the timestamp strategy are refused on
   * the others.
   *
   * @param poller the poller's node, for errors about its {@code response:}
   * @param at the {@code cursor:} node
   * @param next where the response holds the next token, or null
   * @param nextLink whether the response pages by the Link header
   * @throws io.watukuy.ConfigException naming the file, line, poller and key of the first error
   */
  static CursorSpec cursor(At poller, At at, @Nullable Locator next, boolean nextLink) {
    if (at.missing())
      throw poller.error("cursor: missing (strategy: timestamp | token | page | snapshotDiff)");
    at.object(
        "strategy",
        "field",
        "tieBreak",
        "initial",
        "lag",
        "overlap",
        "format",
        "zone",
        "maxOffset",
        "sorted");
    At strategyAt = at.child("strategy");
    if (strategyAt.missing())
      throw at.error("strategy: missing (timestamp | token | page | snapshotDiff)");
    String strategy = strategyAt.string("");
    switch (strategy) {
      case "timestamp" -> {
        At field = at.child("field");
        if (field.missing()) throw at.error("field: missing (where the timestamp is in each item)");
        String tieBreak =
            at.child("tieBreak").missing() ? null : at.child("tieBreak").locator().dotPath();
        At initial = at.child("initial");
        String init = initial.missing() || initial.node.isNull() ? null : initial.node.asText();
        DateTimeFormatter format = CursorFormat.read(at);
        if (init != null && format != null) {
          // Checked here, at its own line: the engine would only say the field's values differ.
          try {
            format.parse(init);
          } catch (DateTimeParseException e) {
            throw initial.error(
                "'"
                    + init
                    + "' does not match cursor.format '"
                    + at.child("format").string("")
                    + "' (write the initial value in that format)");
          }
        }
        return new CursorSpec(
            strategy,
            field.locator().dotPath(),
            tieBreak,
            init,
            null,
            at.child("lag").duration(Duration.ZERO),
            at.child("overlap").duration(Duration.ZERO),
            format,
            at.child("maxOffset").missing() ? null : at.child("maxOffset").integer(0, 1),
            at.child("sorted").bool(true));
      }
      case "token", "page", "snapshotDiff" -> {
        for (String only :
            List.of(
                "field", "tieBreak", "lag", "overlap", "format", "zone", "maxOffset", "sorted")) {
          if (!at.child(only).missing()) {
            throw at.child(only).error("applies to the timestamp strategy only");
          }
        }
        At initial = at.child("initial");
        if (strategy.equals("snapshotDiff") && !initial.missing()) {
          throw initial.error("snapshotDiff has no cursor, so no initial value");
        }
        if (strategy.equals("token") && nextLink) {
          throw poller
              .child("response")
              .child("next")
              .error(
                  "the token strategy needs a pointer to the token in the body, not {header: Link}");
        }
        if (strategy.equals("token") && next == null) {
          throw poller.error(
              "response.next: missing (the token strategy reads the next token there)");
        }
        String init = initial.missing() || initial.node.isNull() ? null : initial.node.asText();
        Integer page =
            strategy.equals("page") ? initial.integer(PageCursor.DEFAULT_INITIAL, 0) : null;
        return new CursorSpec(
            strategy,
            null,
            null,
            strategy.equals("token") ? init : null,
            page,
            Duration.ZERO,
            Duration.ZERO,
            null,
            null,
            true);
      }
      default ->
          throw strategyAt.error(
              "'" + strategy + "' is not a strategy (timestamp, token, page, snapshotDiff)");
    }
  }
}
