package io.watukuy.store.mariadb;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.PollerKey;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.Lease;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.StatePatch;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A page's rows go as multi-row INSERTs (docs/stores.md, "MariaDbStore"), split so that no
 * statement outgrows the server's {@code max_allowed_packet}: a page whose events add up to more
 * than that limit still commits whole.
 */
class MariaDbLargePageTest {
  private static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");
  private static final PollerKey KEY = PollerKey.of("orders");

  @RegisterExtension
  static final MariaDbDatabase db = new MariaDbDatabase("wk_large", "watukuy-large", 2);

  @Test
  void aPageOfEventsLargerThanMaxAllowedPacketCommitsWholeInSeveralStatements() throws Exception {
    long packet;
    try (Connection c = db.pool().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT @@max_allowed_packet")) {
      rs.next();
      packet = rs.getLong(1);
    }
    // Events of 1 M characters each, together 1.5 times the server's packet limit.
    String body = "x".repeat(1_000_000);
    int count = (int) (packet * 3 / 2 / body.length()) + 1;
    List<OutboxRow> events = new ArrayList<>();
    for (int seq = 1; seq <= count; seq++) {
      events.add(
          OutboxRow.pending(
              seq, "id-" + seq, "ok", "{\"s\":" + seq + ",\"b\":\"" + body + "\"}", T0));
    }
    try (MariaDbStore store = MariaDbStore.builder(db.pool()).tablePrefix("large_").build()) {
      Lease lease = store.acquireLease(KEY, "a", Duration.ofSeconds(30), T0).orElseThrow();

      store.commitPoll(
          KEY,
          lease,
          new CommitBatch(
              StatePatch.NONE.withLastSequence(count),
              List.of(),
              List.of(),
              events,
              false,
              List.of()),
          T0);

      assertThat(store.countPending(KEY)).isEqualTo(count);
      assertThat(store.loadPending(KEY, count - 1, 1)).containsExactly(events.get(count - 1));
    }
  }
}
