package io.watukuy.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.Lane;
import io.watukuy.PollerKey;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.StateStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The replay lane (docs/architecture.md, "Lanes"): logged events copied into the outbox with their
 * original ids, fresh sequences and lane {@code replay}, one commit per batch.
 */
final class Replay {
  private static final int BATCH = 500;

  private Replay() {}

  static int copy(
      StateStore store,
      PollerKey key,
      Lease lease,
      Instant from,
      @Nullable Instant to,
      Instant now) {
    long last = store.loadState(key).map(PollerState::lastSequence).orElse(0L);
    long after = -1;
    int copied = 0;
    while (true) {
      List<LoggedEvent> logged =
          store.readLog(key, new LogRange(after < 0 ? null : after, from, to), BATCH);
      if (logged.isEmpty()) return copied;
      // Sequences of the copies are above every logged one, so the log can be read on by sequence.
      List<OutboxRow> rows = new ArrayList<>(logged.size());
      for (LoggedEvent e : logged) {
        ObjectNode n = (ObjectNode) Json.tree(e.event());
        long seq = ++last;
        n.put("lane", Lane.REPLAY.wire());
        n.put("sequence", seq);
        n.putNull("attempt");
        rows.add(
            OutboxRow.pending(
                seq, n.get("id").asText(), n.get("orderingKey").asText(), n.toString(), now));
        after = e.sequence();
      }
      store.commitPoll(
          key,
          lease,
          new CommitBatch(
              new StatePatch(null, null, null, last), List.of(), List.of(), rows, false, List.of()),
          now);
      copied += rows.size();
      if (logged.size() < BATCH) return copied;
    }
  }
}
