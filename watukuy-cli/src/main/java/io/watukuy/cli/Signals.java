package io.watukuy.cli;

import sun.misc.Signal;

/**
 * SIGINT and SIGTERM (and SIGHUP, for logrotate) as a callback rather than JVM shutdown, so the
 * daemon drains and exits 0 instead of 130 or 143. Falls back to the shutdown hook where {@code
 * sun.misc.Signal} is absent.
 */
final class Signals {
  private Signals() {}

  /** SIGHUP as a callback: {@code kill -HUP} reopens the output file instead of killing the JVM. */
  @SuppressWarnings("restriction")
  static void onHangup(Runnable action) {
    try {
      Signal.handle(new Signal("HUP"), s -> action.run());
    } catch (IllegalArgumentException | LinkageError e) {
      // no SIGHUP here (Windows): nothing to reopen on
    }
  }

  @SuppressWarnings("restriction")
  static void onTermination(Runnable action) {
    for (String name : new String[] {"INT", "TERM"}) {
      try {
        Signal.handle(new Signal(name), s -> action.run());
      } catch (IllegalArgumentException | LinkageError e) {
        // signal not available here: the shutdown hook covers it
      }
    }
  }
}
