package io.watukuy.spi;

import java.util.List;
import java.util.Objects;

/**
 * Everything one page commits, written by {@link StateStore#commitPoll} in ONE transaction (How it
 * works, "The commit protocol"; guarantee G4).
 *
 * @param statePatch next lane cursor, last outbox sequence, schema version
 * @param upserts item rows to insert or replace
 * @param deletes identities to remove from the snapshot (full-scan lanes and tombstones)
 * @param events new pending outbox rows
 * @param log whether to also append {@code events} to the replay log
 * @param parked invalid items quarantined by this page
 * @since 0.1
 */
public record CommitBatch(
    StatePatch statePatch,
    List<ItemRow> upserts,
    List<String> deletes,
    List<OutboxRow> events,
    boolean log,
    List<ParkedRow> parked) {
  /**
   * Creates a batch; the lists are copied.
   *
   * @param statePatch the state patch, required
   * @param upserts item rows to insert or replace
   * @param deletes identities to remove
   * @param events new pending outbox rows
   * @param log whether to append {@code events} to the replay log
   * @param parked invalid items to park
   * @throws NullPointerException if an argument or a list element is null
   */
  public CommitBatch {
    Objects.requireNonNull(statePatch, "statePatch");
    upserts = List.copyOf(upserts);
    deletes = List.copyOf(deletes);
    events = List.copyOf(events);
    parked = List.copyOf(parked);
  }

  /**
   * A batch that only patches state: no rows, no events, no log append.
   *
   * @param patch the state patch
   * @return the batch
   */
  public static CommitBatch state(StatePatch patch) {
    return new CommitBatch(patch, List.of(), List.of(), List.of(), false, List.of());
  }
}
