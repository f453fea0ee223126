package io.watukuy.store.jdbc.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.Lease;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.StatePatch;
import io.watukuy.store.jdbc.JdbcStore;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link JdbcStore#ackWithin} ("acks inside a caller's transaction, fenced";
 * docs/stores.md): the caller's writes and the acks commit together or not at all; a stale epoch or
 * a lost lease refuses both; the engine's own {@code ackEvents} of the same sequences afterwards is
 * a no-op. Every SQL store runs it: extend it with a class whose {@link #newStore()} returns a
 * fresh store and whose {@link #table()} names a table the store's connections can create.
 *
 * @since 0.2
 */
public abstract class AckWithinContractTest {
  private static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");
  private static final Duration TTL = Duration.ofSeconds(30);
  private static final PollerKey KEY = PollerKey.of("orders");

  private JdbcStore store;
  private String table;

  /**
   * A fresh, empty store; the test migrates it and closes it after.
   *
   * @return a store sharing no data with earlier ones
   */
  protected abstract JdbcStore newStore();

  /**
   * A table name, qualified if needed, that no other test of the run uses: the test creates it on
   * the store's own connection.
   *
   * @return the caller's table
   */
  protected abstract String table();

  @BeforeEach
  void createStoreAndTable() {
    store = newStore();
    store.migrate();
    table = table();
    store.withConnection(
        "create " + table,
        c -> {
          try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (k VARCHAR(100) PRIMARY KEY)");
          }
          return null;
        });
  }

  @AfterEach
  void dropTableAndClose() {
    try {
      store.withConnection(
          "drop " + table,
          c -> {
            try (Statement s = c.createStatement()) {
              s.execute("DROP TABLE " + table);
            }
            return null;
          });
    } finally {
      store.close();
    }
  }

  @Test
  void theCallersRowsAndTheAcksCommitTogether() {
    Lease lease = leaseWithThreePendingEvents();

    String result = store.ackWithin(KEY, lease, List.of(1L, 2L), c -> insert(c, "written"));

    assertThat(result).isEqualTo("written");
    assertThat(rows()).containsExactly("written");
    assertThat(pendingSequences()).containsExactly(3L);
  }

  @Test
  void aFailingWriteOfTheCallerAcksNothingAndWritesNothing() {
    Lease lease = leaseWithThreePendingEvents();

    assertThatThrownBy(
            () ->
                store.ackWithin(
                    KEY,
                    lease,
                    List.of(1L, 2L),
                    c -> {
                      insert(c, "first");
                      return insert(c, "first"); // a duplicate primary key: the work fails
                    }))
        .isInstanceOf(StoreException.class)
        .hasCauseInstanceOf(SQLException.class);

    assertThat(rows()).isEmpty();
    assertThat(pendingSequences()).containsExactly(1L, 2L, 3L);
  }

  @Test
  void aStaleEpochRefusesTheCallersRowsAndTheAcks() {
    Lease stale = leaseWithThreePendingEvents();
    Lease taken =
        store.acquireLease(KEY, "instance-b", TTL, T0.plus(TTL).plusSeconds(1)).orElseThrow();
    assertThat(taken.epoch()).isGreaterThan(stale.epoch());

    assertThatThrownBy(() -> store.ackWithin(KEY, stale, List.of(1L, 2L), c -> insert(c, "late")))
        .isInstanceOf(LeaseLostException.class);

    assertThat(rows()).isEmpty();
    assertThat(pendingSequences()).containsExactly(1L, 2L, 3L);
  }

  @Test
  void aReleasedLeaseRefusesTheCallersRowsAndTheAcks() {
    Lease released = leaseWithThreePendingEvents();
    store.releaseLease(KEY, released);

    assertThatThrownBy(
            () -> store.ackWithin(KEY, released, List.of(1L), c -> insert(c, "after-release")))
        .isInstanceOf(LeaseLostException.class);

    assertThat(rows()).isEmpty();
    assertThat(pendingSequences()).containsExactly(1L, 2L, 3L);
  }

  @Test
  void theEnginesAckOfTheSameSequencesAfterwardsIsANoOp() {
    Lease lease = leaseWithThreePendingEvents();
    store.ackWithin(KEY, lease, List.of(1L, 2L), c -> insert(c, "once"));

    store.ackEvents(KEY, lease, List.of(1L, 2L));

    assertThat(rows()).containsExactly("once");
    assertThat(pendingSequences()).containsExactly(3L);
    store.ackEvents(KEY, lease, List.of(1L, 2L, 3L));
    assertThat(pendingSequences()).isEmpty();
  }

  @Test
  void anAckOfNoSequencesStillRunsTheCallersWriteUnderTheFence() {
    Lease lease = leaseWithThreePendingEvents();

    store.ackWithin(KEY, lease, List.of(), c -> insert(c, "alone"));

    assertThat(rows()).containsExactly("alone");
    assertThat(pendingSequences()).containsExactly(1L, 2L, 3L);
  }

  private Lease leaseWithThreePendingEvents() {
    Lease lease = store.acquireLease(KEY, "instance-a", TTL, T0).orElseThrow();
    store.commitPoll(
        KEY,
        lease,
        new CommitBatch(
            StatePatch.NONE.withLastSequence(3),
            List.of(),
            List.of(),
            List.of(event(1), event(2), event(3)),
            false,
            List.of()),
        T0);
    assertThat(pendingSequences()).containsExactly(1L, 2L, 3L);
    return lease;
  }

  private static OutboxRow event(long sequence) {
    return OutboxRow.pending(
        sequence,
        "evt-" + sequence,
        "ok-" + sequence,
        "{\"id\":\"evt-" + sequence + "\",\"type\":\"created\",\"sequence\":" + sequence + "}",
        T0);
  }

  private String insert(java.sql.Connection c, String k) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (k) VALUES (?)")) {
      ps.setString(1, k);
      ps.executeUpdate();
    }
    return k;
  }

  private List<String> rows() {
    return store.withConnection(
        "read " + table,
        c -> {
          List<String> out = new ArrayList<>();
          try (Statement s = c.createStatement();
              ResultSet rs = s.executeQuery("SELECT k FROM " + table + " ORDER BY k")) {
            while (rs.next()) out.add(rs.getString(1));
          }
          return out;
        });
  }

  private List<Long> pendingSequences() {
    return store.loadPending(KEY, 0, 100).stream().map(OutboxRow::sequence).toList();
  }
}
