package io.watukuy.engine;

import static io.watukuy.engine.Items.item;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cursors;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.WatukuyListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link WatukuyListener#onPage} reports a running cycle's progress after every committed page, on
 * the engine's clock (docs/operations.md, "Progress").
 */
class PageProgressTest {
  final Fixture f = new Fixture();

  @Test
  void everyCommittedPageReportsPagesItemsEventsAndTheCyclesElapsedTime() {
    List<String> heard = new ArrayList<>();
    Poller<JsonNode> slow =
        Poller.builder("slow", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .fetch(
                ctx -> {
                  f.clock.advance(Duration.ofSeconds(4)); // a vendor that takes 4 s per page
                  return Page.<JsonNode>of(
                          List.of(item("id", "p" + ctx.page()), item("id", "q" + ctx.page())))
                      .withHasMore(ctx.page() < 3);
                })
            .schedule(Fixture.FIXED)
            .build();
    WatukuyListener listener =
        new WatukuyListener() {
          @Override
          public void onPage(PollerKey key, int pages, int items, int events, Duration elapsed) {
            heard.add(key + " " + pages + "/" + items + "/" + events + " " + elapsed);
          }
        };

    f.engine("a").listener(listener).poller(slow).build().tick();

    assertThat(heard).containsExactly("slow 1/2/2 PT4S", "slow 2/4/4 PT8S", "slow 3/6/6 PT12S");
  }
}
