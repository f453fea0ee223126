package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.HttpStatusException;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.Watukuy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the engine logs about a key that is not failing: a throttle is an INFO line saying until
 * when, never "cycle failed" (docs/operations.md, "Health": a throttle is not a failure), and a key
 * paused by an earlier run gets one INFO line at start naming poller, partition, why and since.
 */
class LogLinesTest {
  final Fixture f = new Fixture();

  private static HttpStatusException answered429(String retryAfter) {
    return new HttpStatusException(
        429, "GET", "http://vendor/orders", Map.of("retry-after", List.of(retryAfter)), null);
  }

  @Test
  void a429IsLoggedAsAThrottleUntilItsEndNotAsAFailedCycle() {
    f.seed(1);
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, e -> {});
    f.api.failNext(1, () -> answered429("60"));

    List<String> log = OutageBackoffTest.logged(w::tick);

    assertThat(w.inspect().key(PollerKey.of("orders")).orElseThrow().state())
        .isEqualTo(ScheduleState.Status.THROTTLED);
    // Retry-After: 60 at 10:00:00 ends the throttle at 10:01:00.
    assertThat(log)
        .filteredOn(l -> l.contains("throttled until"))
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .contains("INFO")
                    .contains("poller orders: throttled until 2026-03-01T10:01:00Z: ")
                    .contains("429"));
    assertThat(log).noneMatch(l -> l.contains("cycle failed")).noneMatch(l -> l.contains("WARN"));

    // A 500 is still a failed cycle, at WARN on the error logger.
    f.clock.advance(Duration.ofMinutes(2));
    f.api.failNext(
        1, () -> new HttpStatusException(500, "GET", "http://vendor/orders", Map.of(), null));
    List<String> failed = OutageBackoffTest.logged(w::tick);
    assertThat(failed)
        .anyMatch(
            l ->
                l.contains("WARN")
                    && l.contains(Watukuy.ERROR_LOGGER)
                    && l.contains("poller orders: cycle failed"));
    assertThat(failed).noneMatch(l -> l.contains("throttled until"));
  }

  @Test
  void aKeyPausedByAnEarlierRunIsLoggedOnceAtStart() {
    f.seed(1);
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Poller<JsonNode> invoices = f.timestamp("invoices", 10).build();
    Watukuy earlier = f.engine("a").poller(orders).poller(invoices).build();
    earlier.on(orders, e -> {}).on(invoices, e -> {});
    earlier.tick();
    f.clock.advance(Duration.ofMinutes(1));
    earlier.pause("orders"); // at 10:01:00
    earlier.close();

    f.clock.advance(Duration.ofHours(1));
    Watukuy later = f.engine("b").poller(orders).poller(invoices).build();
    later.on(orders, e -> {}).on(invoices, e -> {});
    List<String> log =
        OutageBackoffTest.logged(
            () -> {
              later.start();
              later.stop();
            });

    assertThat(log)
        .filteredOn(l -> l.contains("paused ("))
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .contains("INFO")
                    .contains(
                        "poller orders: paused (manual) since 2026-03-01T10:01:00Z; not polled"
                            + " until resumed"));
  }
}
