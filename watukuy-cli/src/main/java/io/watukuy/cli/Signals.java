package io.watukuy.cli;

import sun.misc.Signal;

/**
 * SIGINT and SIGTERM as a callback rather than JVM shutdown, so the daemon drains and exits 0
 * instead of 130 or 143. Falls back to the shutdown hook where {@code sun.misc.Signal} is absent.
 */
final class Signals {
  private Signals() {}

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
