package io.watukuy.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The raw baselines of the listing phases: the store work alone, through {@link RawStore}, over the
 * same rows a phase wrote or read, 500 at a time; only the store calls are timed. A phase's {@code
 * ratio} is watukuy's items/s over its baseline's.
 */
final class RawBaseline {
  private static final int PAGE = EndToEnd.PAGE;

  private RawBaseline() {}

  /** What {@link #timeBatches} times. */
  enum Op {
    UPSERT,
    SELECT
  }

  /** Runs the raw store over every listed item, 500 at a time; only the store calls are timed. */
  static double timeBatches(ListingServer server, RawStore raw, Op op) throws Exception {
    // A read right after the bulk upsert would find the table not yet analyzed, and PostgreSQL
    // would then read the whole table for every batch: a baseline slower than the engine.
    if (op == Op.SELECT) raw.analyze();
    int n = server.size();
    long nanos = 0;
    long now = Instant.now().toEpochMilli();
    List<Integer> indexes = server.liveIndexes();
    for (int from = 0; from < n; from += PAGE) {
      List<Integer> batch = indexes.subList(from, Math.min(n, from + PAGE));
      if (op == Op.UPSERT) {
        List<RawStore.Row> rows = rows(server, batch, now);
        long t = System.nanoTime();
        raw.upsert(rows);
        nanos += System.nanoTime() - t;
      } else {
        List<String> ids = new ArrayList<>(batch.size());
        for (int i : batch) ids.add(EndToEnd.identity(i));
        long t = System.nanoTime();
        int found = raw.select(ids);
        nanos += System.nanoTime() - t;
        if (found != ids.size())
          throw new IllegalStateException("baseline read found " + found + " of " + ids.size());
      }
    }
    return nanos / 1e9;
  }

  /** Upserts the rows of the listed items {@code indexes}, 500 per call; returns the seconds. */
  static double timeUpserts(ListingServer server, RawStore raw, List<Integer> indexes)
      throws Exception {
    long nanos = 0;
    long now = Instant.now().toEpochMilli();
    for (int from = 0; from < indexes.size(); from += PAGE) {
      List<RawStore.Row> rows =
          rows(server, indexes.subList(from, Math.min(indexes.size(), from + PAGE)), now);
      long t = System.nanoTime();
      raw.upsert(rows);
      nanos += System.nanoTime() - t;
    }
    return nanos / 1e9;
  }

  /** Deletes the rows of the items {@code indexes}, 500 per call; returns the seconds. */
  static double timeDeletes(RawStore raw, List<Integer> indexes) throws Exception {
    long nanos = 0;
    for (int from = 0; from < indexes.size(); from += PAGE) {
      List<String> ids = new ArrayList<>();
      for (int i : indexes.subList(from, Math.min(indexes.size(), from + PAGE)))
        ids.add(EndToEnd.identity(i));
      long t = System.nanoTime();
      raw.delete(ids);
      nanos += System.nanoTime() - t;
    }
    return nanos / 1e9;
  }

  private static List<RawStore.Row> rows(ListingServer server, List<Integer> indexes, long now) {
    List<RawStore.Row> rows = new ArrayList<>(indexes.size());
    for (int i : indexes) {
      int rev = server.revision(i);
      // A stand-in content hash: 64 hex digits like the real one, without the cost of hashing.
      String hash =
          String.format(
              Locale.ROOT, "%016x%016x%016x%016x", i, rev, (long) i * 31 + rev, ~(long) i);
      rows.add(new RawStore.Row(EndToEnd.identity(i), server.updatedAt(i), hash, now));
    }
    return rows;
  }
}
