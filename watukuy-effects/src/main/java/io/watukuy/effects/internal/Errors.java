package io.watukuy.effects.internal;

import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/** Failure text for invocation rows and logs: named, redacted, bounded. */
final class Errors {
  /** Longest error kept on a row; an operator reads the start, the log has the rest. */
  static final int MAX_CHARS = 2_000;

  private Errors() {}

  /** The exception's simple class name and message, redacted and bounded. */
  static String describe(Throwable t, Function<@Nullable String, String> redaction) {
    String msg = t.getMessage() == null ? "" : ": " + t.getMessage();
    return redact(t.getClass().getSimpleName() + msg, redaction);
  }

  /** Text from an arm or a store (a terminal failure's reason), redacted and bounded. */
  static String redact(String text, Function<@Nullable String, String> redaction) {
    String r = redaction.apply(text);
    return r.length() <= MAX_CHARS ? r : r.substring(0, MAX_CHARS) + "...";
  }
}
