package io.watukuy.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.watukuy.PollerKey;
import org.junit.jupiter.api.Test;

/** The bounded memory of which cycle committed which sequences of a key. */
class CommitLinksTest {
  static final PollerKey ORDERS = PollerKey.of("orders");
  static final PollerKey EU = PollerKey.of("orders", "eu");

  static SpanContext cycle(int n) {
    return SpanContext.create(
        "0af7651916cd43dd8448eb211c80319c",
        String.format("%016x", n),
        TraceFlags.getSampled(),
        TraceState.getDefault());
  }

  @Test
  void aSequenceIsFoundInItsKeysRangeOnly() {
    CommitLinks links = new CommitLinks(10);
    links.remember(ORDERS, 1, 3, cycle(1));
    links.remember(ORDERS, 4, 4, cycle(2));
    links.remember(EU, 1, 2, cycle(3));

    assertThat(links.find(ORDERS, 1)).isEqualTo(cycle(1));
    assertThat(links.find(ORDERS, 3)).isEqualTo(cycle(1));
    assertThat(links.find(ORDERS, 4)).isEqualTo(cycle(2));
    assertThat(links.find(ORDERS, 5)).isNull();
    assertThat(links.find(EU, 2)).isEqualTo(cycle(3));
    assertThat(links.find(EU, 3)).isNull();
    assertThat(links.find(PollerKey.of("other"), 1)).isNull();
  }

  @Test
  void pastItsCapacityTheOldestCommitIsForgotten() {
    CommitLinks links = new CommitLinks(2);
    links.remember(ORDERS, 1, 2, cycle(1));
    links.remember(ORDERS, 3, 4, cycle(2));
    links.remember(EU, 1, 1, cycle(3));

    assertThat(links.size()).isEqualTo(2);
    assertThat(links.find(ORDERS, 1)).isNull();
    assertThat(links.find(ORDERS, 3)).isEqualTo(cycle(2));
    assertThat(links.find(EU, 1)).isEqualTo(cycle(3));
  }

  @Test
  void aCommitOverlappingARememberedOneReplacesIt() {
    CommitLinks links = new CommitLinks(10);
    links.remember(ORDERS, 1, 5, cycle(1));
    links.remember(ORDERS, 6, 8, cycle(2));
    links.remember(ORDERS, 1, 2, cycle(3)); // the outbox was reset: sequences start again

    assertThat(links.find(ORDERS, 1)).isEqualTo(cycle(3));
    assertThat(links.find(ORDERS, 4)).isNull();
    assertThat(links.find(ORDERS, 7)).isEqualTo(cycle(2));
    assertThat(links.size()).isEqualTo(2);
  }
}
