package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ConfigException;
import io.watukuy.Cursors;
import io.watukuy.CustomCursor;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.Watukuy;
import java.time.Instant;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * An operation that does not fit the poller is refused before anything is written, with a {@link
 * ConfigException} that names the poller and what was wrong (the Javadoc of {@link Watukuy}'s
 * operations; docs/architecture.md, "Cursors in the store and in operations": {@code resetCursor}
 * checks {@code to} first, {@code backfill} checks that the strategy is ordered and that {@code
 * from} is before {@code to}). What fits is accepted.
 */
class RefusedOperationsTest {
  final Fixture f = new Fixture();

  /** A page poller, a snapshotDiff poller, a timestamp poller without event log, a custom one. */
  final Poller<JsonNode> pages =
      Poller.builder("pages", JsonNode.class)
          .identity(n -> n.get("id"))
          .cursor(Cursors.page())
          .fetch(f.api.pageFetcher(2))
          .schedule(Fixture.FIXED)
          .build();

  final Poller<JsonNode> catalog = f.snapshot("catalog", 10).build();
  final Poller<JsonNode> orders = f.timestamp("orders", 10).build();
  final Poller<JsonNode> plain =
      Poller.builder("plain", JsonNode.class)
          .identity(n -> n.get("id"))
          .cursor(Cursors.custom("", in -> new CustomCursor.Step<>(in.cursor(), true)))
          .fetch(ctx -> f.api.afterId(ctx.cursor().isEmpty() ? null : ctx.cursor(), 10))
          .schedule(Fixture.FIXED)
          .build();
  final Watukuy w =
      f.engine("a").poller(pages).poller(catalog).poller(orders).poller(plain).build();

  /** A call that must be refused, and the words its message must contain. */
  record Refused(String what, ThrowingCallable call, List<String> named) {}

  @Test
  void eachRefusedOperationThrowsAConfigExceptionNamingThePollerAndTheOffendingValue() {
    Instant now = f.clock.now();
    List<Refused> refused =
        List.of(
            new Refused(
                "a page cursor that is no number",
                () -> w.resetCursor("pages", "abc", false),
                List.of("poller pages", "'abc'")),
            new Refused(
                "a negative page",
                () -> w.resetCursor("pages", "-3", false),
                List.of("poller pages", "'-3'")),
            new Refused(
                "a page before the first, 1",
                () -> w.resetCursor("pages", "0", false),
                List.of("poller pages", "'0'")),
            new Refused(
                "a cursor for snapshotDiff, which has none",
                () -> w.resetCursor("catalog", "x", false),
                List.of("poller catalog", "snapshotDiff", "'x'")),
            new Refused(
                "a backfill from a string that is no timestamp",
                () -> w.backfill("orders", "yesterday", null, false),
                List.of("poller orders", "'yesterday'")),
            new Refused(
                "a backfill whose from is after its to",
                () -> w.backfill("orders", "2026-03-01T10:00:00Z", "2026-02-01T00:00:00Z", false),
                List.of("poller orders", "'2026-03-01T10:00:00Z'", "'2026-02-01T00:00:00Z'")),
            new Refused(
                "a backfill of snapshotDiff, which has no order",
                () -> w.backfill("catalog", null, null, false),
                List.of("poller catalog", "snapshotDiff")),
            new Refused(
                "a backfill of a custom cursor without an ordering",
                () -> w.backfill("plain", null, null, false),
                List.of("poller plain", "custom", "ordering")),
            new Refused(
                "a replay without an event log",
                () -> w.replay("orders", now, null),
                List.of("poller orders", "event log")),
            new Refused(
                "a replay of an unknown poller",
                () -> w.replay("nope", now, null),
                List.of("'nope'")),
            new Refused("a pause of an unknown poller", () -> w.pause("nope"), List.of("'nope'")),
            new Refused("a resume of an unknown poller", () -> w.resume("nope"), List.of("'nope'")),
            new Refused(
                "a trigger of an unknown poller", () -> w.trigger("nope"), List.of("'nope'")));

    for (Refused r : refused) {
      assertThatThrownBy(r.call())
          .as(r.what())
          .isInstanceOf(ConfigException.class)
          .satisfies(e -> assertThat(e.getMessage()).as(r.what()).contains(r.named()));
    }
    assertThat(f.store.listKeys(null)).as("keys written by refused operations").isEmpty();
  }

  @Test
  void theOperationsThatFitThePollerAreAccepted() {
    w.resetCursor("pages", "3", false);
    w.resetCursor("catalog", null, true);
    w.backfill("orders", "2026-02-01T00:00:00Z", "2026-03-01T10:00:00Z", false);
    w.backfill("pages", "1", null, true);
    w.pause("plain");
    w.resume("plain");
    w.trigger("plain");

    assertThat(f.store.loadState(PollerKey.of("pages")).orElseThrow().cursors())
        .containsEntry("live", "3");
    ScheduleState.Backfill backfill =
        f.store.loadState(PollerKey.of("orders")).orElseThrow().schedule().backfill();
    assertThat(backfill).isNotNull();
    assertThat(backfill.from()).isEqualTo("2026-02-01T00:00:00Z");
    assertThat(backfill.to()).isEqualTo("2026-03-01T10:00:00Z");
    assertThat(backfill.force()).isFalse();
    assertThat(f.store.loadState(PollerKey.of("pages")).orElseThrow().schedule().backfill())
        .isNotNull();
    assertThat(f.store.loadState(PollerKey.of("plain")).orElseThrow().schedule().paused()).isNull();
  }
}
