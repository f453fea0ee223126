package io.watukuy.formats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.BodyFormat;
import io.watukuy.formats.CsvFormat.ColumnType;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CsvFormatTest {

  // A shop's order export as spreadsheets write it: CRLF line ends, a quoted value with a comma,
  // one with a doubled quote and one with a line break, an empty value.
  static final String EXPORT =
      "id,customer,total,paid,note\r\n"
          + "1001,\"Müller, Anna\",12.50,true,\r\n"
          + "1002,Bob,7,FALSE,\"gift \"\"wrap\"\"\"\r\n"
          + "1003,\"Chen\",0.99,false,\"deliver\r\nto the back door\"\r\n";

  @Test
  void rowsAreObjectsOfStringsKeyedByTheHeader() throws IOException {
    JsonNode rows = read(new CsvFormat(), EXPORT);

    assertThat(rows).hasSize(3);
    assertThat(rows.get(0).get("customer").textValue()).isEqualTo("Müller, Anna");
    assertThat(rows.get(0).get("total").textValue()).isEqualTo("12.50");
    assertThat(rows.get(0).get("note").textValue()).isEmpty();
    assertThat(rows.get(1).get("note").textValue()).isEqualTo("gift \"wrap\"");
    assertThat(rows.get(2).get("note").textValue()).isEqualTo("deliver\r\nto the back door");
    assertThat(rows.get(2).fieldNames())
        .toIterable()
        .containsExactly("id", "customer", "total", "paid", "note");
  }

  @Test
  void typedColumnsConvertAndEmptyIsNull() throws IOException {
    CsvFormat typed =
        CsvFormat.builder()
            .column("id", ColumnType.INTEGER)
            .column("total", ColumnType.NUMBER)
            .column("paid", ColumnType.BOOLEAN)
            .column("note", ColumnType.INTEGER)
            .build();

    JsonNode rows =
        read(
            typed,
            EXPORT
                .replace("\"gift \"\"wrap\"\"\"", "")
                .replace("\"deliver\r\nto the back door\"", "3"));

    assertThat(rows.get(0).get("id").isIntegralNumber()).isTrue();
    assertThat(rows.get(0).get("id").longValue()).isEqualTo(1001);
    assertThat(rows.get(0).get("total").doubleValue()).isEqualTo(12.5);
    assertThat(rows.get(1).get("paid").booleanValue()).isFalse();
    assertThat(rows.get(0).get("note").isNull()).isTrue();
    assertThat(rows.get(2).get("note").intValue()).isEqualTo(3);
  }

  @Test
  void aBadTypedValueNamesRowColumnAndValue() {
    CsvFormat typed = CsvFormat.builder().column("total", ColumnType.NUMBER).build();
    String body = EXPORT.replace("0.99", "0,99 EUR".replace(",", "."));

    assertThatThrownBy(() -> read(typed, body.replace("0.99 EUR", "n/a")))
        .isInstanceOf(IOException.class)
        .hasMessage("row 3, column 'total': 'n/a' is not a number");
    assertThatThrownBy(
            () ->
                read(
                    CsvFormat.builder().column("paid", ColumnType.BOOLEAN).build(),
                    body.replace("FALSE", "no")))
        .hasMessage("row 2, column 'paid': 'no' is not a boolean");
  }

  @Test
  void aTypedColumnMissingFromTheHeaderIsAnError() {
    CsvFormat typed = CsvFormat.builder().column("qty", ColumnType.INTEGER).build();

    assertThatThrownBy(() -> read(typed, EXPORT))
        .hasMessage(
            "column 'qty' (typed integer) is not in the header row [id, customer, total, paid,"
                + " note]");
  }

  @Test
  void aRowWithTooManyOrTooFewValuesIsNamed() {
    assertThatThrownBy(() -> read(new CsvFormat(), "id,name\n1,a\n2,b,extra\n"))
        .hasMessageStartingWith("row 2 (line 3): Too many entries");
    assertThatThrownBy(() -> read(new CsvFormat(), "id,name\n1,a\n2\n"))
        .hasMessage("row 2 (line 3): Not enough column values: expected 2, found 1");
  }

  @Test
  void separatorCharsetAndByteOrderMark() throws IOException {
    CsvFormat semicolon = CsvFormat.builder().separator(';').build();
    byte[] latin1 = "sku;name\nA-1;Crème brûlée\n".getBytes(StandardCharsets.ISO_8859_1);
    byte[] bom = ("\uFEFF" + EXPORT).getBytes(StandardCharsets.UTF_8);

    JsonNode rows = semicolon.read(new ByteArrayInputStream(latin1), StandardCharsets.ISO_8859_1);
    assertThat(rows.get(0).get("name").textValue()).isEqualTo("Crème brûlée");
    assertThat(new CsvFormat().read(new ByteArrayInputStream(bom), null).get(0).has("id")).isTrue();
    byte[] cp1252 = "id,price\n1,€5\n".getBytes(Charset.forName("windows-1252"));
    assertThat(
            new CsvFormat()
                .read(new ByteArrayInputStream(cp1252), Charset.forName("windows-1252"))
                .get(0)
                .get("price")
                .textValue())
        .isEqualTo("€5");
  }

  @Test
  void aHeaderAloneIsAnEmptyListAndAnEmptyBodyIsMissing() throws IOException {
    assertThat(read(new CsvFormat(), "id,name\r\n")).isEmpty();
    assertThat(read(new CsvFormat(), "").isMissingNode()).isTrue();
  }

  @Test
  void foundByServiceLoaderAndByContentType() {
    assertThat(BodyFormat.named("csv")).get().isInstanceOf(CsvFormat.class);
    assertThat(BodyFormat.forContentType("text/csv; charset=utf-8; header=present"))
        .isInstanceOf(CsvFormat.class);
    assertThat(ColumnType.of("Integer")).isEqualTo(ColumnType.INTEGER);
    assertThatThrownBy(() -> ColumnType.of("date"))
        .hasMessage("'date' is not a column type; use string, integer, number or boolean");
  }

  private static JsonNode read(CsvFormat format, String body) throws IOException {
    return format.read(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)), null);
  }
}
