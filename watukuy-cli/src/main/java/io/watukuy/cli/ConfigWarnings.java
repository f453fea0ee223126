package io.watukuy.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * What {@code validate} warns about: a config that loads but whose requests cannot move with the
 * cursor, so that a lane would stall at run time (docs/operations.md, "Stalled lanes"). Warnings,
 * not errors: an API that ignores the parameter would stall either way, and one whose ties never
 * fill a page never stalls. {@link AuthWarnings} adds the auth findings (a credential written in
 * the file, a named auth no poller uses).
 */
final class ConfigWarnings {
  private ConfigWarnings() {}

  /** One line per finding, each {@code watukuy: warning: poller NAME: ...}. */
  static List<String> of(CliConfig config) {
    List<String> out = new ArrayList<>();
    for (CliConfig.PollerSpec p : config.pollers()) {
      String strategy = p.cursor().strategy();
      boolean cursorled = strategy.equals("timestamp") || strategy.equals("token");
      // A kept next URL is the request itself from the second page on: no variable carries it.
      if (p.response().nextUrl() != null) cursorled = false;
      if (cursorled && !p.request().uses("cursor.value")) {
        out.add(
            warning(
                p,
                "request never uses {{cursor.value}}: every request of a cycle asks for the first"
                    + " page, and the lane stalls on its second page (PageRepeated); put it in the"
                    + " url or query ("
                    + (strategy.equals("timestamp")
                        ? "updated_since: \"{{cursor.value}}\""
                        : "page_token: \"{{cursor.value}}\"")
                    + ")"));
      }
      String tieBreak = p.cursor().tieBreak();
      Integer maxOffset = p.cursor().maxOffset();
      if (maxOffset != null && tieBreak == null) {
        out.add(
            warning(
                p,
                "cursor.maxOffset "
                    + maxOffset
                    + " without cursor.tieBreak: more than "
                    + maxOffset
                    + " items at one "
                    + p.cursor().field()
                    + " make every new query start from the same watermark, and the lane stalls"
                    + " there (PageRepeated); set tieBreak: id and pass after_id:"
                    + " \"{{cursor.tieBreak}}\" if the API can filter by it"));
      }
      if (tieBreak != null && !p.request().uses("cursor.tieBreak")) {
        out.add(
            warning(
                p,
                "cursor.tieBreak "
                    + tieBreak
                    + " is set but no request template uses {{cursor.tieBreak}}: more items at one "
                    + p.cursor().field()
                    + " than a page holds stall the lane (PageRepeated); pass it (after_id:"
                    + " \"{{cursor.tieBreak}}\") if the API can filter by it, or ask for pages"
                    + " larger than the widest tie"));
      }
    }
    out.addAll(AuthWarnings.of(config));
    return out;
  }

  private static String warning(CliConfig.PollerSpec p, String text) {
    return "watukuy: warning: poller " + p.name() + ": " + text;
  }
}
