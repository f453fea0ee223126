package io.watukuy.effects.internal;

import io.watukuy.internal.http.Redactor;

/** Failure text for invocation rows and logs: named, redacted, bounded. */
final class Errors {
  /** Longest error kept on a row; an operator reads the start, the log has the rest. */
  static final int MAX_CHARS = 2_000;

  private Errors() {}

  static String describe(Throwable t) {
    String msg = t.getMessage() == null ? "" : ": " + t.getMessage();
    String text = Redactor.NONE.message(t.getClass().getSimpleName() + msg);
    return text.length() <= MAX_CHARS ? text : text.substring(0, MAX_CHARS) + "...";
  }
}
