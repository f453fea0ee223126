package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import org.junit.jupiter.api.Test;

/**
 * The daemon prints one line when a key's store starts failing and one when it is back, not one per
 * attempt (issue 16, §6: Redis down printed 35 lines in 17 s).
 */
class OutageLinesTest {
  private static final PollerKey KEY = PollerKey.of("orders", "eu");

  private static StoreException down() {
    return new StoreException(
        "store redis://127.0.0.1:6379/0: loadState orders[eu]: Connection refused", null);
  }

  @Test
  void aStoreOutageIsOneLineWhenItStartsAndOneWhenItEnds() {
    OutageLines lines = new OutageLines();

    assertThat(lines.line(KEY, down()))
        .isEqualTo(
            "poller orders partition eu: store redis://127.0.0.1:6379/0: loadState orders[eu]:"
                + " Connection refused; retrying with backoff");
    assertThat(lines.line(KEY, down())).isNull();
    assertThat(lines.line(KEY, down())).isNull();
    assertThat(lines.line(KEY, null)).isEqualTo("poller orders partition eu: store recovered");
    assertThat(lines.line(KEY, null)).isNull();
    assertThat(lines.line(KEY, down())).endsWith("; retrying with backoff");
  }

  @Test
  void otherErrorsAreLeftToTheCaller() {
    OutageLines lines = new OutageLines();
    RuntimeException fetch = new IllegalStateException("GET http://127.0.0.1/x returned HTTP 500");

    assertThat(lines.line(KEY, fetch)).isNull();
    assertThat(OutageLines.isStore(fetch)).isFalse();
    assertThat(OutageLines.isStore(new RuntimeException("wrapped", down()))).isTrue();
  }
}
