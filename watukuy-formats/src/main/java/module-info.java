/**
 * Body formats beyond JSON (docs/config.md, "response.format"): {@code CsvFormat} and {@code
 * XmlFormat}, each an {@code io.watukuy.BodyFormat} found by {@link java.util.ServiceLoader} in its
 * default configuration or built with options and passed to {@code HttpResult.tree(BodyFormat)}.
 */
module io.watukuy.formats {
  requires transitive io.watukuy;
  requires com.fasterxml.jackson.dataformat.csv;
  requires com.fasterxml.jackson.dataformat.xml;
  requires java.xml;
  requires static org.jspecify;

  exports io.watukuy.formats;

  provides io.watukuy.BodyFormat with
      io.watukuy.formats.CsvFormat,
      io.watukuy.formats.XmlFormat;
}
