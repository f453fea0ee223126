package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.FetchException;
import io.watukuy.PollerKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;

/** The one stderr line of a failed key keeps what the engine's message adds to its cause. */
class FailuresTest {
  private static final PollerKey KEY = PollerKey.of("inf");

  @Test
  void anItemThatCannotBeCanonicalizedNamesThePageTheItemAndTheRequest() {
    // The shape of the engine's error for {"amount":1e400} (docs/operations.md, "Bodies that are
    // refused"): the cause names only the field; the FetchException adds the item and the request.
    IllegalArgumentException cause =
        new IllegalArgumentException("/amount: Infinity cannot be canonicalized");
    FetchException f =
        new FetchException(
            "inf",
            "",
            1,
            0,
            "cannot be canonicalized (RFC 8785): /amount: Infinity cannot be canonicalized; page"
                + " from GET http://127.0.0.1:1/inf (HTTP 200)",
            cause);

    assertThat(Failures.line(KEY, f))
        .isEqualTo(
            "poller inf: page 1, item 1: cannot be canonicalized (RFC 8785): /amount: Infinity"
                + " cannot be canonicalized; page from GET http://127.0.0.1:1/inf (HTTP 200)");
  }

  @Test
  void aRequestThatFailedIsNamedByTheHelpersOwnWordsOnce() {
    UncheckedIOException cause =
        new UncheckedIOException(
            "GET http://127.0.0.1:1/orders failed: Connection refused", new IOException("refused"));
    FetchException f = new FetchException("inf", "", 1, -1, cause.getMessage(), cause);

    assertThat(Failures.line(KEY, f))
        .isEqualTo("poller inf: GET http://127.0.0.1:1/orders failed: Connection refused");
  }
}
