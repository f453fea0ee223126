package io.watukuy.bench;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One row of the sink bench: a sink as a user configures it ({@code sink:} settings, found through
 * {@link io.watukuy.sink.SinkProvider}), the store its engine runs on, and the sink's own client
 * writing the same records with the same durability ({@link Raw}). Each round gets destinations of
 * its own (a topic, table, queue, stream, file), so that no round meets the records of another;
 * {@link #close()} removes every one it made.
 */
interface SinkTarget extends AutoCloseable {
  /** The row's name, such as {@code kafka} or {@code table-postgres-same}. */
  String name();

  /** The store of the engine: {@code memory}, or the SQL store the table shares. */
  String store();

  /** What the raw client does, for the results. */
  String rawWhat();

  /** The target for sink ÷ raw, or NaN where it sets none. */
  default double target() {
    return Double.NaN;
  }

  /**
   * Makes the destination of the sink's pass of {@code round} and returns the {@code sink:}
   * settings that write to it.
   *
   * @param round 1-based
   * @param store the engine's store (the table sink's {@code sameDatabase} writes into it)
   * @return the settings, {@code type} included
   */
  Map<String, Object> sink(int round, BenchStore store) throws Exception;

  /**
   * Makes the destination of the raw pass of {@code round} and connects a raw client to it.
   *
   * @param round 1-based
   * @param store the engine's store of the same round, closed after the raw pass (the table's raw
   *     client writes into its database when the sink shares it)
   * @return the client; the caller closes it
   */
  Raw raw(int round, BenchStore store) throws Exception;

  /**
   * How many records the sink's pass of {@code round} left in its destination, read back; null
   * where reading back costs more than the check is worth (a broker's topic).
   */
  default @Nullable Long delivered(int round) throws Exception {
    return null;
  }

  /** The raw client of one pass. */
  interface Raw extends AutoCloseable {
    /**
     * Writes one batch and returns once the destination acknowledged all of it (a broker's ack, a
     * commit, a 2xx, a force to disk).
     */
    void write(List<SinkRecord> batch) throws Exception;
  }
}
