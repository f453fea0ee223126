package io.watukuy.formats;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import io.watukuy.BodyFormat;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * CSV pages (RFC 4180) with a header row, read with Jackson's CSV module: each row becomes an
 * object from the header's column names to the row's values, the body an array of those objects in
 * order (docs/config.md, "response.format"). Values are strings unless a column is given a {@link
 * ColumnType}. Quoted values may hold the separator, doubled quotes and newlines; empty lines are
 * skipped; a row with more or fewer values than the header has names is an error naming the row.
 *
 * <p>Named {@code csv}; reads {@code text/csv} and {@code application/csv}. The instance {@link
 * java.util.ServiceLoader} makes has no column types and the separator {@value #DEFAULT_SEPARATOR}.
 * Immutable and thread-safe.
 *
 * @since 0.2
 */
public final class CsvFormat implements BodyFormat {

  /** The column separator unless {@link Builder#separator} sets another. */
  public static final char DEFAULT_SEPARATOR = ',';

  private static final CsvMapper MAPPER =
      CsvMapper.builder()
          .enable(CsvParser.Feature.SKIP_EMPTY_LINES)
          .enable(CsvParser.Feature.FAIL_ON_MISSING_COLUMNS)
          .build();

  /** What a column's values become. */
  public enum ColumnType {
    /** The text as it is; the default of every column. */
    STRING,
    /** A whole number of any size; {@code 42}, {@code -7}. */
    INTEGER,
    /** A number as JSON reads one (a double); {@code 12.50}, {@code 1e3}. */
    NUMBER,
    /** {@code true} or {@code false}, any case. */
    BOOLEAN;

    /**
     * The type of a configuration word.
     *
     * @param word {@code string}, {@code integer}, {@code number} or {@code boolean}, any case
     * @return the type
     * @throws IllegalArgumentException for any other word, listing the four
     */
    public static ColumnType of(String word) {
      for (ColumnType t : values()) {
        if (t.name().equalsIgnoreCase(word.strip())) return t;
      }
      throw new IllegalArgumentException(
          "'" + word + "' is not a column type; use string, integer, number or boolean");
    }

    String word() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final char separator;
  private final Map<String, ColumnType> columns;

  /** The default CSV format: separator {@value #DEFAULT_SEPARATOR}, every value a string. */
  public CsvFormat() {
    this(DEFAULT_SEPARATOR, Map.of());
  }

  private CsvFormat(char separator, Map<String, ColumnType> columns) {
    if (separator == '"' || separator == '\n' || separator == '\r') {
      throw new IllegalArgumentException(
          "separator cannot be a quote or a line break, but was " + printable(separator));
    }
    this.separator = separator;
    this.columns = Map.copyOf(columns);
  }

  /**
   * A builder starting from the defaults.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The column separator.
   *
   * @return one character, {@value #DEFAULT_SEPARATOR} by default
   */
  public char separator() {
    return separator;
  }

  /**
   * The typed columns.
   *
   * @return column names to their types, unmodifiable; columns not named are strings
   */
  public Map<String, ColumnType> columns() {
    return columns;
  }

  @Override
  public String name() {
    return "csv";
  }

  @Override
  public boolean reads(String mediaType) {
    return mediaType.equals("text/csv") || mediaType.equals("application/csv");
  }

  @Override
  public JsonNode read(InputStream body, @Nullable Charset charset) throws IOException {
    @Nullable InputStream in = Text.nonEmpty(body);
    if (in == null) return MissingNode.getInstance();
    CsvSchema schema = CsvSchema.emptySchema().withHeader().withColumnSeparator(separator);
    ObjectReader reader = MAPPER.readerFor(ObjectNode.class).with(schema);
    ArrayNode rows = JsonNodeFactory.instance.arrayNode();
    int row = 0;
    try (MappingIterator<ObjectNode> it = reader.readValues(BodyFormat.textReader(in, charset))) {
      boolean checked = false;
      while (true) {
        boolean more;
        try {
          more = it.hasNextValue();
        } catch (JsonProcessingException e) {
          throw problem(row + 1, e);
        }
        if (!checked) {
          checkHeader((CsvParser) it.getParser());
          checked = true;
        }
        if (!more) break;
        row++;
        ObjectNode values;
        try {
          values = it.nextValue();
        } catch (JsonProcessingException e) {
          throw problem(row, e);
        }
        convert(values, row);
        rows.add(values);
      }
    }
    return rows;
  }

  /** Every typed column must be in the header row: a typo would leave its values strings. */
  private void checkHeader(CsvParser parser) throws IOException {
    if (columns.isEmpty()) return;
    List<String> header = new ArrayList<>();
    parser.getSchema().forEach(c -> header.add(c.getName()));
    for (String name : columns.keySet()) {
      if (!header.contains(name)) {
        throw new IOException(
            "column '"
                + name
                + "' (typed "
                + columns.get(name).word()
                + ") is not in the header row "
                + header);
      }
    }
  }

  /**
   * Converts the typed columns of one row. The row, not the line, is named: a quoted value may span
   * lines, and the row is what a spreadsheet shows.
   */
  private void convert(ObjectNode values, int row) throws IOException {
    for (Map.Entry<String, ColumnType> c : columns.entrySet()) {
      JsonNode v = values.get(c.getKey());
      if (v == null || !v.isTextual() || c.getValue() == ColumnType.STRING) continue;
      String text = v.textValue().strip();
      if (text.isEmpty()) {
        values.putNull(c.getKey());
        continue;
      }
      JsonNodeFactory f = JsonNodeFactory.instance;
      try {
        switch (c.getValue()) {
          case INTEGER -> values.set(c.getKey(), f.numberNode(new BigInteger(text)));
          case NUMBER -> {
            double d = Double.parseDouble(text);
            if (Double.isInfinite(d) || text.endsWith("N") || text.startsWith("N")) {
              throw new NumberFormatException();
            }
            values.set(c.getKey(), f.numberNode(d));
          }
          case BOOLEAN -> {
            if (!text.equalsIgnoreCase("true") && !text.equalsIgnoreCase("false")) {
              throw new NumberFormatException();
            }
            values.put(c.getKey(), text.equalsIgnoreCase("true"));
          }
          default -> throw new IllegalStateException(c.getValue().name());
        }
      } catch (NumberFormatException e) {
        String shown = text.length() > 40 ? text.substring(0, 40) + "..." : text;
        throw new IOException(
            "row "
                + row
                + ", column '"
                + c.getKey()
                + "': '"
                + shown
                + "' is not "
                + (c.getValue() == ColumnType.INTEGER ? "an " : "a ")
                + c.getValue().word(),
            e);
      }
    }
  }

  private static IOException problem(int row, JsonProcessingException e) {
    JsonLocation at = e.getLocation();
    return new IOException(
        "row "
            + row
            + (at == null || at.getLineNr() <= 0 ? "" : " (line " + at.getLineNr() + ")")
            + ": "
            + e.getOriginalMessage(),
        e);
  }

  private static String printable(char c) {
    return c == '\n' ? "\\n" : c == '\r' ? "\\r" : "'" + c + "'";
  }

  @Override
  public String toString() {
    return "csv(separator " + printable(separator) + ", columns " + columns + ")";
  }

  /** Builds a {@link CsvFormat}. */
  public static final class Builder {
    private char separator = DEFAULT_SEPARATOR;
    private final Map<String, ColumnType> columns = new LinkedHashMap<>();

    private Builder() {}

    /**
     * The column separator.
     *
     * @param separator one character, not a quote or line break; default {@value
     *     #DEFAULT_SEPARATOR}
     * @return this builder
     */
    public Builder separator(char separator) {
      this.separator = separator;
      return this;
    }

    /**
     * Gives a column a type.
     *
     * @param name the column's name in the header row
     * @param type what its values become
     * @return this builder
     */
    public Builder column(String name, ColumnType type) {
      columns.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(type, "type"));
      return this;
    }

    /**
     * The format.
     *
     * @return an immutable format
     * @throws IllegalArgumentException if the separator is a quote or a line break
     */
    public CsvFormat build() {
      return new CsvFormat(separator, columns);
    }
  }
}
