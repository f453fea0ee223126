package io.watukuy.internal.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.BodyFormat;
import io.watukuy.HttpResult;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The built-in body formats, the choice by Content-Type, and the charset of a Content-Type. */
class BodyFormatsTest {

  private static final Instant AT = Instant.parse("2026-12-01T00:00:00Z");

  // An NDJSON export as export endpoints write it: one object a line, a newline after the last.
  private static final String EXPORT =
      "{\"id\":\"o-1\",\"status\":\"paid\",\"total\":12.5}\n"
          + "{\"id\":\"o-2\",\"status\":\"open\",\"tags\":[\"a\",\"b\"]}\r\n"
          + "\n"
          + "{\"id\":\"o-3\",\"status\":\"void\"}\n";

  @Test
  void ndjsonIsAnArrayOfTheLinesValuesSkippingBlankLines() {
    JsonNode tree = result("application/x-ndjson", EXPORT.getBytes(StandardCharsets.UTF_8)).tree();

    assertThat(tree.isArray()).isTrue();
    assertThat(tree).hasSize(3);
    assertThat(tree.get(1).get("tags").get(1).textValue()).isEqualTo("b");
    assertThat(tree.get(2).get("id").textValue()).isEqualTo("o-3");
  }

  @Test
  void anEmptyNdjsonBodyIsAnEmptyList() {
    assertThat(result("application/jsonl", new byte[0]).tree(BodyFormat.ndjson())).isEmpty();
  }

  @Test
  void aBadNdjsonLineIsNamedByItsNumber() {
    String body = "{\"id\":\"o-1\"}\n{\"id\":\"o-2\"}\n{\"id\": o-3}\n";

    assertThatThrownBy(() -> result("application/x-ndjson", utf8(body)).tree())
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageStartingWith(
            "GET https://api.test/export (HTTP 200, Content-Type application/x-ndjson): the body"
                + " is not valid NDJSON: line 3 is not one JSON value: Unrecognized token 'o'")
        .hasMessageContaining("(column ");
  }

  @Test
  void twoValuesOnOneNdjsonLineAreRefused() {
    assertThatThrownBy(() -> result("application/x-ndjson", utf8("{\"id\":1} {\"id\":2}\n")).tree())
        .hasMessageContaining("line 1 is not one JSON value");
  }

  @Test
  void theFormatIsChosenByTheMediaTypeAndIsJsonOtherwise() {
    assertThat(BodyFormat.forContentType("application/x-ndjson; charset=utf-8").name())
        .isEqualTo("ndjson");
    assertThat(BodyFormat.forContentType("application/vnd.api+json").name()).isEqualTo("json");
    assertThat(BodyFormat.forContentType("text/plain").name()).isEqualTo("json");
    assertThat(BodyFormat.forContentType(null).name()).isEqualTo("json");
    assertThat(BodyFormat.named("NDJSON")).containsSame(BodyFormat.ndjson());
    assertThat(BodyFormat.named("yaml")).isEmpty();
  }

  @Test
  void latin1AndWindows1252BodiesAreDecodedByTheirCharset() {
    String json = "[{\"name\":\"Café Zürich\",\"price\":\"€ 4\"}]";
    byte[] latin1 = "[{\"name\":\"Café Zürich\"}]".getBytes(StandardCharsets.ISO_8859_1);
    byte[] cp1252 = json.getBytes(Charset.forName("windows-1252"));

    assertThat(result("application/json; charset=ISO-8859-1", latin1).tree().get(0).get("name"))
        .hasToString("\"Café Zürich\"");
    JsonNode w = result("application/json;charset=\"windows-1252\"", cp1252).tree().get(0);
    assertThat(w.get("price").textValue()).isEqualTo("€ 4");
    // The same bytes read as UTF-8 would be malformed: the charset is what makes them right.
    assertThat(cp1252).contains((byte) 0x80);
  }

  @Test
  void utf16WithAByteOrderMarkIsDecodedForJsonAndNdjson() {
    byte[] json = "[{\"id\":\"ä-1\"}]".getBytes(StandardCharsets.UTF_16); // big-endian, with BOM
    byte[] lines = "{\"id\":\"ä-1\"}\n{\"id\":\"ä-2\"}\n".getBytes(StandardCharsets.UTF_16LE);
    byte[] bomLe = new byte[lines.length + 2];
    bomLe[0] = (byte) 0xFF;
    bomLe[1] = (byte) 0xFE;
    System.arraycopy(lines, 0, bomLe, 2, lines.length);

    assertThat(result("application/json; charset=UTF-16", json).tree().get(0).get("id").textValue())
        .isEqualTo("ä-1");
    assertThat(result("application/x-ndjson; charset=utf-16", bomLe).tree().get(1).get("id"))
        .hasToString("\"ä-2\"");
  }

  @Test
  void aUtf8ByteOrderMarkIsSkippedInNdjson() {
    byte[] body = ("\uFEFF" + EXPORT).getBytes(StandardCharsets.UTF_8);

    assertThat(result("application/x-ndjson; charset=utf-8", body).tree()).hasSize(3);
  }

  @Test
  void anUnknownCharsetIsAClearError() {
    assertThatThrownBy(() -> result("application/json; charset=klingon-8", utf8("[]")).tree())
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining(
            "the Content-Type names charset 'klingon-8', which this Java runtime does not know");
  }

  @Test
  void jsonInUtf8GoesThroughJsonAndKeepsItsMessages() {
    HttpResult r = result("application/json", utf8("{\"id\":1,\"id\":2}"));

    assertThatThrownBy(r::tree)
        .hasMessageContaining("the body is not valid JSON for a JSON tree: Duplicate field 'id'");
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static HttpResult result(String contentType, byte[] body) {
    return HttpResult.of(
        200,
        "GET",
        "https://api.test/export",
        Map.of("Content-Type", List.of(contentType)),
        body,
        AT);
  }
}
