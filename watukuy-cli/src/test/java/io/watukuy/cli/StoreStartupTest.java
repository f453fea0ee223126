package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.ConfigException;
import io.watukuy.StoreException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A daemon whose store's server is not up yet waits for it with backoff (boot order). */
class StoreStartupTest {
  private final List<String> lines = new ArrayList<>();
  private final List<Long> waits = new ArrayList<>();

  @Test
  void aStoreThatCannotBeReachedIsTriedAgainWithBackoffAndOneLineEachWay() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    String opened =
        StoreStartup.await(
            () -> {
              if (attempts.incrementAndGet() <= 8)
                throw new StoreException(
                    "redis store 127.0.0.1:6390: cannot connect: Connection refused", null);
              return "store";
            },
            lines::add,
            waits::add);

    assertThat(opened).isEqualTo("store");
    assertThat(attempts).hasValue(9);
    // 1 s doubling, capped at 60 s.
    assertThat(waits).containsExactly(1000L, 2000L, 4000L, 8000L, 16000L, 32000L, 60000L, 60000L);
    assertThat(lines)
        .containsExactly(
            "redis store 127.0.0.1:6390: cannot connect: Connection refused; the store is not"
                + " reachable yet, retrying with backoff",
            "store opened, starting");
  }

  @Test
  void aConfigErrorIsNotWaitedFor() {
    assertThatThrownBy(
            () ->
                StoreStartup.await(
                    () -> {
                      throw new ConfigException("store: tablePrefix must not start with 'sqlite_'");
                    },
                    lines::add,
                    waits::add))
        .isInstanceOf(ConfigException.class);
    assertThat(waits).isEmpty();
    assertThat(lines).isEmpty();
  }
}
