package io.watukuy.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/** JSON forms of errors kept in outbox and parked rows. */
final class Errors {
  private static final int MAX_STACK_CHARS = 8_000;

  private Errors() {}

  static String name(Throwable t) {
    return t.getClass().getSimpleName();
  }

  static String message(Throwable t) {
    return t.getMessage() == null ? t.getClass().getName() : t.getMessage();
  }

  static String stack(Throwable t) {
    StringWriter w = new StringWriter();
    t.printStackTrace(new PrintWriter(w));
    String s = w.toString();
    return s.length() <= MAX_STACK_CHARS ? s : s.substring(0, MAX_STACK_CHARS) + "\n\t...";
  }

  /** {@code history} (a JSON array or null) with one more failed attempt appended. */
  static ArrayNode appendAttempt(@Nullable String history, int attempt, Instant at, Throwable t) {
    ArrayNode a = history == null ? Json.MAPPER.createArrayNode() : (ArrayNode) Json.tree(history);
    ObjectNode o = a.addObject();
    o.put("attempt", attempt);
    o.put("at", Envelope.instant(at));
    o.put("name", name(t));
    o.put("message", message(t));
    o.put("stack", stack(t));
    return a;
  }
}
