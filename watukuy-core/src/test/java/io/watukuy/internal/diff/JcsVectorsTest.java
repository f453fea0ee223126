package io.watukuy.internal.diff;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The six input/output pairs of the RFC 8785 reference implementation (see jcs/PROVENANCE.md). */
class JcsVectorsTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = JcsVectorsTest.class.getResourceAsStream("/jcs/" + name)) {
      assertThat(in).as("classpath resource jcs/%s", name).isNotNull();
      return in.readAllBytes();
    }
  }

  private static byte[] canonicalInput(String vector) throws IOException {
    JsonNode input = MAPPER.readTree(resource("input/" + vector + ".json"));
    return Jcs.canonicalize(input);
  }

  private static byte[] decodeHex(String text) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (String pair : text.trim().split("\\s+")) {
      bytes.write(Integer.parseInt(pair, 16));
    }
    return bytes.toByteArray();
  }

  @ParameterizedTest
  @ValueSource(strings = {"arrays", "french", "structures", "unicode", "values", "weird"})
  void producesTheReferenceOutputBytes(String vector) throws IOException {
    assertThat(canonicalInput(vector)).isEqualTo(resource("output/" + vector + ".json"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"arrays", "french", "structures", "unicode", "values", "weird"})
  void producesTheReferenceHexBytes(String vector) throws IOException {
    String hex = new String(resource("outhex/" + vector + ".txt"), StandardCharsets.US_ASCII);

    assertThat(canonicalInput(vector)).isEqualTo(decodeHex(hex));
  }

  @ParameterizedTest
  @CsvSource({
    "arrays, 32",
    "french, 130",
    "structures, 98",
    "unicode, 30",
    "values, 118",
    "weird, 214",
  })
  void referenceOutputsAreIntactCopiesWithoutTrailingNewline(String vector, int size)
      throws IOException {
    byte[] output = resource("output/" + vector + ".json");

    assertThat(output).hasSize(size);
    assertThat(output[output.length - 1]).isNotEqualTo((byte) '\n');
  }

  @ParameterizedTest
  @ValueSource(strings = {"arrays", "french", "structures", "unicode", "values", "weird"})
  void canonicalStringAndHashAgreeWithTheCanonicalBytes(String vector) throws IOException {
    JsonNode input = MAPPER.readTree(resource("input/" + vector + ".json"));
    byte[] expected = resource("output/" + vector + ".json");

    assertThat(Jcs.canonicalString(input).getBytes(StandardCharsets.UTF_8)).isEqualTo(expected);
    assertThat(Jcs.hash(input)).isEqualTo(Sha256.hex(expected));
  }

  @ParameterizedTest
  @ValueSource(strings = {"arrays", "french", "structures", "unicode", "values", "weird"})
  void isIdempotentOnItsOwnOutput(String vector) throws IOException {
    byte[] once = canonicalInput(vector);

    assertThat(Jcs.canonicalize(MAPPER.readTree(once))).isEqualTo(once);
  }
}
