package io.watukuy.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** {@link ParkedRow#errorMessage()}: the stored error JSON as one {@code name: message} reason. */
class ParkedRowTest {
  private static ParkedRow withError(String error) {
    return new ParkedRow(
        "7",
        ParkedKind.POISON,
        7L,
        "evt-7",
        "customer-1",
        "{}",
        null,
        error,
        3,
        Instant.parse("2026-10-21T07:26:30Z"),
        null);
  }

  @Test
  void aPoisonEventsErrorIsItsNameAndMessage() {
    String error =
        "{\"name\":\"IllegalStateException\",\"message\":\"handler down\","
            + "\"stack\":\"java.lang.IllegalStateException: handler down\\n\\tat X\","
            + "\"history\":[{\"attempt\":1,\"message\":\"first try\"}]}";
    assertThat(withError(error).errorMessage()).isEqualTo("IllegalStateException: handler down");
  }

  @Test
  void anInvalidItemsErrorIsItsNameAndJoinedProblems() {
    String error =
        "{\"name\":\"ValidationError\",\"message\":\"price: must be >= 0; sku: missing\","
            + "\"page\":3,\"index\":1,\"problems\":[\"price: must be >= 0\",\"sku: missing\"]}";
    assertThat(withError(error).errorMessage())
        .isEqualTo("ValidationError: price: must be >= 0; sku: missing");
  }

  @Test
  void withoutAStringNameTheMessageStandsAlone() {
    assertThat(withError("{\"message\":\"boom\"}").errorMessage()).isEqualTo("boom");
    assertThat(withError("{\"name\":42,\"message\":\"boom\"}").errorMessage()).isEqualTo("boom");
  }

  @Test
  void anErrorThatIsNotJsonIsShownAsStored() {
    assertThat(withError("timeout after 30 s {").errorMessage()).isEqualTo("timeout after 30 s {");
    assertThat(withError("").errorMessage()).isEmpty();
  }

  @Test
  void anErrorWithoutAStringMessageIsShownAsStored() {
    String noMessage = "{\"name\":\"IllegalStateException\",\"stack\":\"...\"}";
    String numeric = "{\"name\":\"E\",\"message\":503}";
    assertThat(withError(noMessage).errorMessage()).isEqualTo(noMessage);
    assertThat(withError(numeric).errorMessage()).isEqualTo(numeric);
    assertThat(withError("[\"a\",\"b\"]").errorMessage()).isEqualTo("[\"a\",\"b\"]");
  }

  @Test
  void aMultiLineMessageIsKeptWhole() {
    assertThat(withError("{\"name\":\"E\",\"message\":\"line one\\nline two\"}").errorMessage())
        .isEqualTo("E: line one\nline two");
  }
}
