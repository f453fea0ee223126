package io.watukuy.effects;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** The runtime's log lines in a test: slf4j-simple writes them to {@code System.err}. */
final class LogCapture {
  private LogCapture() {}

  /**
   * What the runtime logs while {@code body} runs, one entry a line; {@code System.err} is put back
   * afterwards, also when {@code body} throws.
   */
  static List<String> logged(Runnable body) {
    PrintStream before = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      body.run();
    } finally {
      System.setErr(before);
    }
    return captured.toString(StandardCharsets.UTF_8).lines().toList();
  }

  /**
   * The one line of {@code lines} that contains {@code marker}.
   *
   * @throws AssertionError when no line or several do
   */
  static String onlyLine(List<String> lines, String marker) {
    List<String> found = lines.stream().filter(l -> l.contains(marker)).toList();
    assertThat(found).as("log lines with \"%s\"", marker).hasSize(1);
    return found.get(0);
  }
}
