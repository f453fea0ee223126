package io.watukuy.cli;

import io.watukuy.FetchException;
import io.watukuy.HttpStatusException;
import io.watukuy.PollerKey;
import io.watukuy.WatukuyException;
import org.jspecify.annotations.Nullable;

/**
 * The one line a failed key gets on stderr: which poller (and partition), then what happened in
 * words: the request and its HTTP status, the pointer that found nothing, the connection that was
 * refused. The engine's exceptions carry that in layers (a {@link FetchException} around what the
 * fetch threw, around what the HTTP helper threw); this peels them, so no Java class name and no
 * repeated prefix reaches the user.
 */
final class Failures {
  /** Longest part of an error response's body that is shown. */
  static final int BODY_CHARS = 80;

  private Failures() {}

  /** {@code poller orders partition eu: GET http://… returned HTTP 500}, without the secrets. */
  static String line(PollerKey key, Throwable error) {
    String who = who(key);
    String problem = problem(error) + watermarkKept(error);
    // Engine messages that already name the poller (a store or cursor error) are not named twice.
    for (String named : new String[] {who + ": ", "poller " + key.poller() + ": "}) {
      if (problem.startsWith(named)) return who + ": " + problem.substring(named.length());
    }
    return who + ": " + problem;
  }

  /**
   * What an unsorted timestamp listing ended by {@code error} did with its watermark
   * (docs/config.md, "Unsorted listings"): the engine adds it to the error as a suppressed {@code
   * WatermarkKept}; empty when there is none.
   */
  private static String watermarkKept(Throwable error) {
    for (Throwable s : error.getSuppressed())
      if (s instanceof FetchException f && f.kind().equals(FetchException.WATERMARK_KEPT))
        return "; " + afterPrefix(f);
    return "";
  }

  static String who(PollerKey key) {
    return "poller "
        + key.poller()
        + (key.partition().isEmpty() ? "" : " partition " + key.partition());
  }

  static String problem(Throwable error) {
    HttpStatusException http = find(error, HttpStatusException.class);
    if (http != null) return status(http);
    if (error instanceof FetchException f) {
      Throwable cause = f.getCause();
      String at = "page " + f.page() + (f.itemIndex() >= 0 ? ", item " + (f.itemIndex() + 1) : "");
      if (cause != null && !(cause instanceof WatukuyException)) {
        // What fetch threw: the CLI's own fetch and the HTTP helper name the request first. An
        // engine message that adds words after its cause's (the request of an item that cannot
        // be canonicalized) keeps them; one that only puts "fetch threw X: " before it does not.
        String own = afterPrefix(f);
        String inner = message(cause);
        return own.contains(inner) && !own.endsWith(inner) ? at + ": " + own : inner;
      }
      if (cause != null) return problem(cause);
      return at + ": " + afterPrefix(f);
    }
    return message(error);
  }

  /**
   * The 429, or 503 with Retry-After, that ended a key's run, or null: the scheduler waits it out
   * as a throttle, and {@code run --once} reports it as a skip, not a failure.
   */
  static @Nullable HttpStatusException throttle(@Nullable Throwable error) {
    if (error == null) return null;
    HttpStatusException http = find(error, HttpStatusException.class);
    return http != null && http.isThrottle() ? http : null;
  }

  private static String status(HttpStatusException e) {
    String text = e.method() + " " + e.url() + " returned HTTP " + e.status();
    String body = e.bodySnippet();
    if (body == null || body.isBlank()) return text;
    String flat = body.strip().replaceAll("\\s+", " ");
    return text
        + ": "
        + (flat.length() > BODY_CHARS ? flat.substring(0, BODY_CHARS) + "..." : flat);
  }

  /**
   * The problem of a {@link FetchException} without its {@code poller P page N item I: } prefix.
   */
  private static String afterPrefix(FetchException f) {
    StringBuilder prefix = new StringBuilder("poller ").append(f.poller());
    if (!f.partition().isEmpty()) prefix.append(" partition ").append(f.partition());
    prefix.append(" page ").append(f.page());
    if (f.itemIndex() >= 0) prefix.append(" item ").append(f.itemIndex() + 1);
    prefix.append(": ");
    String m = message(f);
    return m.startsWith(prefix.toString()) ? m.substring(prefix.length()) : m;
  }

  private static String message(Throwable e) {
    String m = e.getMessage();
    if (m == null || m.isBlank())
      return "unexpected error without a message (--verbose prints its stack trace)";
    return m;
  }

  private static <T extends Throwable> @Nullable T find(Throwable e, Class<T> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) return type.cast(t);
      if (t.getCause() == t) break;
    }
    return null;
  }
}
