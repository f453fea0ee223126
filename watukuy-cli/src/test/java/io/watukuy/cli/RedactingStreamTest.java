package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.Watukuy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Standard error hides secrets line by line (docs/operations.md, "Secrets"). */
class RedactingStreamTest {
  @Test
  void aSecretPrintedInPartsOrInsideAStackTraceIsHiddenWhole() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream target = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    PrintStream err =
        RedactingStream.around(target, Watukuy.redaction(List.of("tok-S3cret"))::apply);

    err.print("watukuy: GET /x?t=tok-");
    err.print("S3cret");
    err.println(" failed");
    new IllegalStateException("outer", new IllegalArgumentException("tok%2DS3cret"))
        .printStackTrace(err);
    err.print("no newline tok-S3cret");
    err.flush();

    String shown = bytes.toString(StandardCharsets.UTF_8);
    assertThat(shown)
        .startsWith("watukuy: GET /x?t=[redacted] failed\n")
        .contains("Caused by: java.lang.IllegalArgumentException: [redacted]")
        .endsWith("no newline [redacted]")
        .doesNotContain("S3cret");
  }
}
