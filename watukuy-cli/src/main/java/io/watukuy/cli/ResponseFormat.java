package io.watukuy.cli;

import io.watukuy.BodyFormat;
import io.watukuy.HttpResult;
import io.watukuy.cli.ConfigReader.At;
import io.watukuy.formats.CsvFormat;
import io.watukuy.formats.XmlFormat;
import java.util.Iterator;
import java.util.Map;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * {@code response.format} and {@code response.csv} (docs/config.md, "response.format"): which
 * {@link BodyFormat} reads a page. Without {@code format} the response's {@code Content-Type}
 * chooses, page by page.
 */
final class ResponseFormat {
  private ResponseFormat() {}

  /**
   * The configured format, or null to choose by {@code Content-Type}.
   *
   * @throws io.watukuy.ConfigException for a format that is not available, {@code csv} options
   *     without {@code format: csv}, a column type or separator that is not one
   */
  static @Nullable BodyFormat read(At response, Locator items) {
    At formatAt = response.child("format");
    At csvAt = response.child("csv");
    @Nullable String name = formatAt.string(null);
    @Nullable BodyFormat format = null;
    if (name != null) {
      format =
          BodyFormat.named(name)
              .orElseThrow(
                  () ->
                      formatAt.error(
                          "'"
                              + name
                              + "' is not a body format (expected one of "
                              + BodyFormat.available().stream()
                                  .map(BodyFormat::name)
                                  .collect(Collectors.joining(", "))
                              + ")"));
    }
    if (!csvAt.missing()) {
      if (!(format instanceof CsvFormat)) {
        throw csvAt.error(
            "only with format: csv"
                + (name == null
                    ? " (set it: the Content-Type alone does not apply csv options)"
                    : ", not " + name));
      }
      format = csv(csvAt);
    }
    if (format instanceof XmlFormat xml) return withList(xml, items);
    return format;
  }

  /**
   * The format of one page: the configured one, else the {@code Content-Type}'s, an XML format
   * reading {@code items} as a list either way.
   */
  static BodyFormat pick(@Nullable BodyFormat configured, Locator items, HttpResult result) {
    if (configured != null) return configured;
    BodyFormat chosen = BodyFormat.forContentType(result.header("Content-Type"));
    return chosen instanceof XmlFormat xml ? withList(xml, items) : chosen;
  }

  private static XmlFormat withList(XmlFormat xml, Locator items) {
    String pointer = items.pointer().toString();
    return pointer.isEmpty() ? xml : xml.withList(pointer);
  }

  /** {@code csv: {separator, columns}}. */
  private static CsvFormat csv(At csv) {
    csv.object("separator", "columns");
    CsvFormat.Builder b = CsvFormat.builder();
    At sepAt = csv.child("separator");
    @Nullable String sep = sepAt.string(null);
    if (sep != null) {
      if (sep.length() != 1 || sep.equals("\"") || sep.equals("\n") || sep.equals("\r")) {
        throw sepAt.error(
            "must be one character other than a quote or a line break, but was '" + sep + "'");
      }
      b.separator(sep.charAt(0));
    }
    At columns = csv.child("columns");
    if (!columns.missing()) {
      columns.object(names(columns));
      for (Iterator<Map.Entry<String, com.fasterxml.jackson.databind.JsonNode>> it =
              columns.node.fields();
          it.hasNext(); ) {
        String column = it.next().getKey();
        At typeAt = columns.child(column);
        String word = typeAt.string("");
        try {
          b.column(column, CsvFormat.ColumnType.of(word));
        } catch (IllegalArgumentException e) {
          throw typeAt.error(e.getMessage());
        }
      }
    }
    return b.build();
  }

  private static String[] names(At map) {
    if (!map.node.isObject()) throw map.error("must be a map of column names to types");
    String[] out = new String[map.node.size()];
    int i = 0;
    for (Iterator<String> it = map.node.fieldNames(); it.hasNext(); ) out[i++] = it.next();
    return out;
  }
}
