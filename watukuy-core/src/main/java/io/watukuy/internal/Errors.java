package io.watukuy.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.internal.http.Redactor;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/** JSON forms of errors kept in outbox and parked rows, with the engine's secrets hidden. */
final class Errors {
  private static final int MAX_STACK_CHARS = 8_000;

  private Errors() {}

  static String name(Throwable t) {
    return t.getClass().getSimpleName();
  }

  static String message(Throwable t, Redactor redactor) {
    return redactor.message(t.getMessage() == null ? t.getClass().getName() : t.getMessage());
  }

  /** The stack trace, causes included, redacted before it is cut to its stored length. */
  static String stack(Throwable t, Redactor redactor) {
    String s = redactor.stackTrace(t);
    return s.length() <= MAX_STACK_CHARS ? s : s.substring(0, MAX_STACK_CHARS) + "\n\t...";
  }

  /** {@code history} (a JSON array or null) with one more failed attempt appended. */
  static ArrayNode appendAttempt(
      @Nullable String history, int attempt, Instant at, Throwable t, Redactor redactor) {
    ArrayNode a = history == null ? Json.MAPPER.createArrayNode() : (ArrayNode) Json.tree(history);
    ObjectNode o = a.addObject();
    o.put("attempt", attempt);
    o.put("at", Envelope.instant(at));
    o.put("name", name(t));
    o.put("message", message(t, redactor));
    o.put("stack", stack(t, redactor));
    return a;
  }
}
