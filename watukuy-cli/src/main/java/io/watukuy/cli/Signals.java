package io.watukuy.cli;

import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGINT and SIGTERM (and SIGHUP, for logrotate) as a callback rather than JVM shutdown, so the
 * daemon drains and exits 0 instead of 130 or 143. Falls back to the shutdown hook where {@code
 * sun.misc.Signal} is absent.
 */
final class Signals {
  private Signals() {}

  /**
   * SIGHUP as a callback: {@code kill -HUP} reopens the output file instead of killing the JVM.
   *
   * @return false when SIGHUP cannot reach {@code action}: the process was started with SIGHUP
   *     ignored ({@code nohup}), which the JVM keeps, or the platform has no SIGHUP (Windows)
   */
  @SuppressWarnings("restriction")
  static boolean onHangup(Runnable action) {
    try {
      // An ignored signal stays ignored: the JVM installs nothing and answers SIG_IGN.
      return Signal.handle(new Signal("HUP"), s -> action.run()) != SignalHandler.SIG_IGN;
    } catch (IllegalArgumentException | LinkageError e) {
      return false;
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
