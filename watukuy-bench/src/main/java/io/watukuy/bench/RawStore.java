package io.watukuy.bench;

import java.util.List;

/**
 * A store's raw baseline: the same item rows written and read with no watukuy logic (no lease, no
 * outbox, no state, no diff), one transaction per call, with the durability settings the store
 * itself uses.
 */
interface RawStore extends AutoCloseable {

  /** One item row, as the store's items table holds it (no payload: {@code Retain.HASH}). */
  record Row(String identity, String version, String hash, long seenAt) {}

  /** Inserts or replaces the rows, in one transaction. */
  void upsert(List<Row> rows) throws Exception;

  /**
   * Brings the store's statistics up to date after a bulk load, as a production database would have
   * by the time it is read (autovacuum's ANALYZE), untimed. Does nothing by default.
   */
  default void analyze() throws Exception {}

  /** Reads the version and hash of each identity; returns how many exist. */
  int select(List<String> identities) throws Exception;

  /** Deletes the rows, in one transaction. */
  void delete(List<String> identities) throws Exception;

  @Override
  void close() throws Exception;
}
