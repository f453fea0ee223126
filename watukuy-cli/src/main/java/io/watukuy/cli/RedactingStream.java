package io.watukuy.cli;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.UnaryOperator;

/**
 * Standard error as the command writes it: every line passes through the config's redaction before
 * it reaches the terminal, so the command's own messages, the engine's log lines (slf4j-simple
 * writes to {@code System.err}) and {@code --verbose} stack traces, causes included, cannot show a
 * secret (docs/operations.md, "Secrets"). Text is held until its line ends, or until a flush, so a
 * secret is never split between two redaction passes by the buffering of a print.
 */
final class RedactingStream extends OutputStream {
  private final PrintStream target;
  private final UnaryOperator<String> redact;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream();

  private RedactingStream(PrintStream target, UnaryOperator<String> redact) {
    this.target = target;
    this.redact = redact;
  }

  /**
   * {@code target} behind the redaction; the function is applied at each line, so secrets it learns
   * later (when the config is read) are hidden from then on.
   */
  static PrintStream around(PrintStream target, UnaryOperator<String> redact) {
    // No auto-flush: a print without a newline stays held, so a secret printed in two parts is
    // still seen whole; println passes each line on at once.
    return new PrintStream(new RedactingStream(target, redact), false, StandardCharsets.UTF_8);
  }

  @Override
  public synchronized void write(int b) {
    line.write(b);
    if (b == '\n') emit();
  }

  @Override
  public synchronized void write(byte[] b, int off, int len) {
    int start = off;
    for (int i = off; i < off + len; i++) {
      if (b[i] == '\n') {
        line.write(b, start, i + 1 - start);
        emit();
        start = i + 1;
      }
    }
    line.write(b, start, off + len - start);
  }

  @Override
  public synchronized void flush() {
    emit();
    target.flush();
  }

  @Override
  public synchronized void close() {
    flush();
  }

  private void emit() {
    if (line.size() == 0) return;
    String text = line.toString(StandardCharsets.UTF_8);
    line.reset();
    target.print(redact.apply(text));
  }
}
