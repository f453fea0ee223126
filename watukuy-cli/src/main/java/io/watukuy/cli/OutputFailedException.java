package io.watukuy.cli;

import java.io.IOException;

/**
 * A write to (or a reopen of) an {@code output:} that failed, its message naming the output: {@code
 * output events.jsonl: No space left on device}. Its own type so that the command reports such an
 * outage once, by {@link OutputSink#isWriteFailure}, and not once per retry.
 */
final class OutputFailedException extends IOException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message {@code output NAME: } and the reason
   * @param cause what the file system or the stream threw
   */
  OutputFailedException(String message, IOException cause) {
    super(message, cause);
  }
}
