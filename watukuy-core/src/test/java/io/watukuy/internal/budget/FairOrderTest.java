package io.watukuy.internal.budget;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.Lane;
import io.watukuy.PollerKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Who gets the next token of a budget (docs/architecture.md, "Lanes"; docs/guarantees.md, G6): lane
 * priority, then rounds of up to {@code weight} turns per key, then arrival. Each test lets a key
 * ask again as soon as it got its token, the way a cycle sends its next page.
 */
class FairOrderTest {
  static final PollerKey A = PollerKey.of("a");
  static final PollerKey B = PollerKey.of("b");
  static final PollerKey C = PollerKey.of("c");
  final FairOrder order = new FairOrder();

  /** Grants {@code n} tokens; after each, the granted key asks again if it has requests left. */
  private String serve(int n, Map<PollerKey, Integer> weights, Map<PollerKey, int[]> left) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < n && !order.isEmpty(); i++) {
      FairOrder.Waiter w = order.grantHead();
      out.append(w.key.poller());
      int[] remaining = left.get(w.key);
      if (remaining != null && --remaining[0] > 0)
        order.add(w.key, w.lane, weights.getOrDefault(w.key, 1));
    }
    return out.toString();
  }

  @Test
  void keysTakeTurnsRoundRobin() {
    order.add(A, Lane.LIVE, 1);
    order.add(B, Lane.LIVE, 1);
    order.add(C, Lane.LIVE, 1);
    String served =
        serve(9, Map.of(), Map.of(A, new int[] {3}, B, new int[] {3}, C, new int[] {3}));
    assertThat(served).isEqualTo("abcabcabc");
  }

  @Test
  void aKeyWithWeightTwoGetsTwoTurnsPerRound() {
    order.add(A, Lane.LIVE, 2);
    order.add(B, Lane.LIVE, 1);
    // a asks again right after each token; in every round of three tokens it gets two. In round 0
    // a's second request arrives after b's first; from round 1 on b's next request is older.
    String served = serve(12, Map.of(A, 2), Map.of(A, new int[] {100}, B, new int[] {100}));
    assertThat(served).isEqualTo("aba" + "baa" + "baa" + "baa");
    assertThat(served.chars().filter(c -> c == 'a').count()).isEqualTo(8);
  }

  @Test
  void requestsQueuedAtOnceAreServedRoundByRound() {
    // A poller whose fetch has several requests outstanding: a (weight 2) four, b two.
    for (int i = 0; i < 4; i++) order.add(A, Lane.LIVE, 2);
    order.add(B, Lane.LIVE, 1);
    order.add(B, Lane.LIVE, 1);
    assertThat(serve(6, Map.of(), Map.of())).isEqualTo("aabaab");
  }

  @Test
  void weightsThreeToOneOverManyRounds() {
    order.add(A, Lane.LIVE, 3);
    order.add(B, Lane.LIVE, 1);
    order.add(C, Lane.LIVE, 1);
    String served =
        serve(
            500,
            Map.of(A, 3),
            Map.of(A, new int[] {1000}, B, new int[] {1000}, C, new int[] {1000}));
    long a = served.chars().filter(ch -> ch == 'a').count();
    long b = served.chars().filter(ch -> ch == 'b').count();
    long c = served.chars().filter(ch -> ch == 'c').count();
    // 3 : 1 : 1 up to the one round in progress.
    assertThat(a).isBetween(297L, 303L);
    assertThat(b).isBetween(99L, 101L);
    assertThat(c).isEqualTo(b);
    // In every window of five tokens after the first round, a has three.
    for (int i = 5; i + 5 <= served.length(); i += 5)
      assertThat(served.substring(i, i + 5).chars().filter(ch -> ch == 'a').count())
          .as(served.substring(i, i + 5))
          .isEqualTo(3);
  }

  @Test
  void liveGoesBeforeReconcileBeforeBackfillBeforeReplay() {
    order.add(A, Lane.REPLAY, 1);
    order.add(B, Lane.BACKFILL, 1);
    order.add(C, Lane.RECONCILE, 1);
    PollerKey d = PollerKey.of("d");
    order.add(d, Lane.LIVE, 1);
    List<String> served = new ArrayList<>();
    while (!order.isEmpty()) {
      FairOrder.Waiter w = order.grantHead();
      served.add(w.key.poller() + ":" + w.lane.wire());
    }
    assertThat(served).containsExactly("d:live", "c:reconcile", "b:backfill", "a:replay");
  }

  @Test
  void aLiveRequestArrivingLaterOvertakesEveryWaitingReconcileRequest() {
    order.add(A, Lane.RECONCILE, 1);
    order.add(B, Lane.RECONCILE, 1);
    assertThat(order.head().key).isEqualTo(A);
    order.add(C, Lane.LIVE, 1);
    // c keeps the lead while it keeps asking: reconcile only gets the tokens live leaves.
    String served =
        serve(5, Map.of(), Map.of(C, new int[] {3}, A, new int[] {1}, B, new int[] {1}));
    assertThat(served).isEqualTo("cccab");
  }

  @Test
  void aLaterRequestNeverOvertakesOneOfTheSameOrHigherPriorityInTheSameRound() {
    order.add(A, Lane.RECONCILE, 1);
    order.add(B, Lane.LIVE, 1);
    order.add(C, Lane.RECONCILE, 1);
    // b is live; a arrived before c at the same priority.
    assertThat(serve(3, Map.of(), Map.of())).isEqualTo("bac");
  }

  @Test
  void aKeyThatWasAloneOwesNoTurnsAndClaimsNone() {
    // a was alone for five tokens (rounds 0 to 4); b arrives while a's next request waits.
    order.add(A, Lane.LIVE, 1);
    assertThat(serve(5, Map.of(), Map.of(A, new int[] {100}))).isEqualTo("aaaaa");
    order.add(B, Lane.LIVE, 1);
    // b is placed in the round being served, ahead of a's request for the next round, and from
    // then on the two alternate: a's solo tokens do not count against it, nor for b.
    assertThat(serve(6, Map.of(), Map.of(A, new int[] {100}, B, new int[] {100})))
        .isEqualTo("baba" + "ba");
  }

  @Test
  void aKeyThatWasIdleDoesNotHoardTurnsForRoundsThatWentBy() {
    order.add(A, Lane.LIVE, 1);
    order.add(B, Lane.LIVE, 1);
    // b stops asking after one token; a goes on alone for several rounds.
    assertThat(serve(6, Map.of(), Map.of(A, new int[] {100}, B, new int[] {1})))
        .isEqualTo("abaaaa");
    // b comes back: one turn in the current round, not the rounds it missed.
    order.add(B, Lane.LIVE, 1);
    assertThat(serve(4, Map.of(), Map.of(A, new int[] {100}, B, new int[] {100})))
        .isEqualTo("baba");
  }

  @Test
  void roundsAreCountedPerLanePriority() {
    // a's live turns do not use up its reconcile turns.
    order.add(A, Lane.LIVE, 1);
    order.add(A, Lane.RECONCILE, 1);
    order.add(B, Lane.RECONCILE, 1);
    assertThat(serve(3, Map.of(), Map.of())).isEqualTo("aab");
  }
}
