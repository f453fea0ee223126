package io.watukuy.internal.diff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.FloatNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JcsNumbersTest {

  private static final String NUMBERS = "/jcs/es6-numbers-10k.txt";

  // Published in the reference implementation's testdata/README.md for its first 10,000 lines.
  private static final String NUMBERS_SHA256 =
      "b9f7a8e75ef22a835685a52ccba7f7d6bdc99e34b010992cbc5864cd12be6892";

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = JcsNumbersTest.class.getResourceAsStream(name)) {
      assertThat(in).as("classpath resource %s", name).isNotNull();
      return in.readAllBytes();
    }
  }

  private static List<String[]> vectors() throws IOException {
    String text = new String(resource(NUMBERS), StandardCharsets.US_ASCII);
    List<String[]> lines = new ArrayList<>();
    for (String line : text.split("\n")) {
      int comma = line.indexOf(',');
      lines.add(new String[] {line.substring(0, comma), line.substring(comma + 1)});
    }
    return lines;
  }

  private static double bits(String hex) {
    return Double.longBitsToDouble(Long.parseUnsignedLong(hex, 16));
  }

  @Test
  void numberVectorFileIsIntact() throws IOException {
    byte[] content = resource(NUMBERS);

    assertThat(content).hasSize(399_022);
    assertThat(Sha256.hex(content)).isEqualTo(NUMBERS_SHA256);
    assertThat(vectors()).hasSize(10_000);
  }

  @Test
  void formatsAllTenThousandReferenceDoublesLikeEcmaScript() throws IOException {
    List<String> mismatches = new ArrayList<>();
    for (String[] vector : vectors()) {
      String actual = Jcs.formatNumber(bits(vector[0]));
      if (!actual.equals(vector[1])) {
        mismatches.add(vector[0] + ": expected " + vector[1] + " but was " + actual);
      }
    }

    assertThat(mismatches).isEmpty();
  }

  @Test
  void canonicalizesAllTenThousandReferenceDoublesAsDoubleNodes() throws IOException {
    List<String> mismatches = new ArrayList<>();
    for (String[] vector : vectors()) {
      String actual = Jcs.canonicalString(DoubleNode.valueOf(bits(vector[0])));
      if (!actual.equals(vector[1])) {
        mismatches.add(vector[0] + ": expected " + vector[1] + " but was " + actual);
      }
    }

    assertThat(mismatches).isEmpty();
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "0.0, 0",
    "-0.0, 0",
    "1.0, 1",
    "-1.5, -1.5",
    "4.9E-324, 5e-324",
    "-4.9E-324, -5e-324",
    "1.0E21, 1e+21",
    "9.999999999999999E20, 999999999999999900000",
    "1.0E-7, 1e-7",
    "1.0E-6, 0.000001",
    "1.234E-6, 0.000001234",
    "123456.789, 123456.789",
    "1.7976931348623157E308, 1.7976931348623157e+308",
    "9007199254740992, 9007199254740992",
    "1.0E23, 1e+23",
    "333333333.33333329, 333333333.3333333",
    "2.0E-3, 0.002",
    "1.0E-27, 1e-27",
    "5.0E-324, 5e-324",
    "1.2E-322, 1.2e-322",
    "100, 100",
    "0.1, 0.1",
  })
  void formatsNotableDoublesInEcmaScriptLayout(double value, String expected) {
    assertThat(Jcs.formatNumber(value)).isEqualTo(expected);
  }

  @Test
  void rejectsNonFiniteValuesInTheFormatter() {
    assertThatThrownBy(() -> Jcs.formatNumber(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Jcs.formatNumber(Double.NEGATIVE_INFINITY))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void writesIntegersWithinTwoToTheFiftyThreeAsPlainDigits() {
    assertThat(Jcs.canonicalString(IntNode.valueOf(-42))).isEqualTo("-42");
    assertThat(Jcs.canonicalString(LongNode.valueOf(9_007_199_254_740_992L)))
        .isEqualTo("9007199254740992");
    assertThat(Jcs.canonicalString(LongNode.valueOf(-9_007_199_254_740_992L)))
        .isEqualTo("-9007199254740992");
  }

  @Test
  void roundsLongsBeyondTwoToTheFiftyThreeThroughDouble() {
    // 2^53 + 1 is not a double; the nearest one (ties to even) is 2^53.
    assertThat(Jcs.canonicalString(LongNode.valueOf(9_007_199_254_740_993L)))
        .isEqualTo("9007199254740992");
    assertThat(Jcs.canonicalString(LongNode.valueOf(Long.MAX_VALUE)))
        .isEqualTo("9223372036854776000");
    assertThat(Jcs.canonicalString(LongNode.valueOf(Long.MIN_VALUE)))
        .isEqualTo("-9223372036854776000");
  }

  @Test
  void convertsBigIntegersToDoubles() {
    assertThat(Jcs.canonicalString(BigIntegerNode.valueOf(BigInteger.TEN.pow(21))))
        .isEqualTo("1e+21");
    assertThat(Jcs.canonicalString(BigIntegerNode.valueOf(new BigInteger("12345678901234567890"))))
        .isEqualTo("12345678901234567000");
  }

  @Test
  void convertsBigDecimalsToDoubles() {
    assertThat(Jcs.canonicalString(DecimalNode.valueOf(new BigDecimal("4.50")))).isEqualTo("4.5");
    assertThat(Jcs.canonicalString(DecimalNode.valueOf(new BigDecimal("56.0")))).isEqualTo("56");
    assertThat(Jcs.canonicalString(DecimalNode.valueOf(new BigDecimal("1E30")))).isEqualTo("1e+30");
    assertThat(Jcs.canonicalString(DecimalNode.valueOf(new BigDecimal("333333333.33333329"))))
        .isEqualTo("333333333.3333333");
    assertThat(Jcs.canonicalString(DecimalNode.valueOf(new BigDecimal("-0.0")))).isEqualTo("0");
  }

  @Test
  void widensFloatsBeforeFormatting() {
    // 0.1f is 0.100000001490116119384765625 exactly; JCS sees only the widened double.
    assertThat(Jcs.canonicalString(FloatNode.valueOf(0.1f))).isEqualTo("0.10000000149011612");
  }

  @Test
  void givesTheSameBytesWhateverNumberTypeJacksonParsedInto() throws IOException {
    String json = "[1, 1.0, 1e0, 10e-1, 12345678901234567890, 0.000001, 1e21, -0]";
    JsonNode asDoubles = MAPPER.readTree(json);
    JsonNode asBigDecimals =
        MAPPER
            .reader(
                com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .readTree(json);

    assertThat(Jcs.canonicalString(asDoubles))
        .isEqualTo("[1,1,1,1,12345678901234567000,0.000001,1e+21,0]")
        .isEqualTo(Jcs.canonicalString(asBigDecimals));
  }
}
