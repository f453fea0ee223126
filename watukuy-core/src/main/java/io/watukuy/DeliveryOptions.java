package io.watukuy;

/**
 * Engine-wide delivery settings.
 *
 * @param concurrency handler calls running at once across all pollers (an event for a {@link
 *     Handler}, a batch for a {@link BatchHandler}), at least 1, default 8
 * @param dispatchBatchSize outbox rows loaded per read, at least 1, default 100 (guarantee G10)
 * @param batchSize events handed to a {@link BatchHandler} at once, at least 1, default {@value
 *     #DEFAULT_BATCH_SIZE}; a crash repeats at most {@code concurrency × batchSize} events (G9).
 *     Ignored for a {@link Handler}
 * @since 0.1
 */
public record DeliveryOptions(int concurrency, int dispatchBatchSize, int batchSize) {
  /** Default handlers running at once, engine-wide (docs/architecture.md, "Defaults"). */
  public static final int DEFAULT_CONCURRENCY = 8;

  /** Default outbox rows loaded per read (docs/architecture.md, "Defaults"). */
  public static final int DEFAULT_DISPATCH_BATCH_SIZE = 100;

  /**
   * Default events per batch of a {@link BatchHandler} (docs/guarantees.md, "Batches"): 100, one
   * outbox read. Measured with {@code bench/run.sh e2e --phases snapshot} on SQLite and PostgreSQL:
   * going from 1 to 100 events per batch cuts the ack writes of a first sync a hundredfold and most
   * of the per-event store time with them, while 500 gained little more (the page's commit
   * dominates by then) and multiplies what a crash can repeat (G9) and what a failed file write
   * throws away fivefold. Equal to {@link #DEFAULT_DISPATCH_BATCH_SIZE}, so one read fills one
   * batch.
   */
  public static final int DEFAULT_BATCH_SIZE = 100;

  /**
   * Concurrency {@value #DEFAULT_CONCURRENCY}, read size {@value #DEFAULT_DISPATCH_BATCH_SIZE},
   * batch size {@value #DEFAULT_BATCH_SIZE}.
   */
  public static final DeliveryOptions DEFAULT =
      new DeliveryOptions(DEFAULT_CONCURRENCY, DEFAULT_DISPATCH_BATCH_SIZE, DEFAULT_BATCH_SIZE);

  /**
   * Validates the settings.
   *
   * @param concurrency handler calls running at once across all pollers; at least 1
   * @param dispatchBatchSize outbox rows loaded per read; at least 1
   * @param batchSize events per batch of a batch handler; at least 1
   * @throws ConfigException if a value is below 1; the message names the field and the value
   */
  public DeliveryOptions {
    if (concurrency < 1)
      throw new ConfigException("delivery.concurrency must be >= 1, but was " + concurrency);
    if (dispatchBatchSize < 1)
      throw new ConfigException(
          "delivery.dispatchBatchSize must be >= 1, but was " + dispatchBatchSize);
    if (batchSize < 1)
      throw new ConfigException("delivery.batchSize must be >= 1, but was " + batchSize);
  }

  /**
   * The settings with the default batch size, {@value #DEFAULT_BATCH_SIZE}.
   *
   * @param concurrency handler calls running at once across all pollers; at least 1
   * @param dispatchBatchSize outbox rows loaded per read; at least 1
   * @throws ConfigException if a value is below 1; the message names the field and the value
   */
  public DeliveryOptions(int concurrency, int dispatchBatchSize) {
    this(concurrency, dispatchBatchSize, DEFAULT_BATCH_SIZE);
  }

  /**
   * These settings with another batch size.
   *
   * @param batchSize events per batch of a batch handler; at least 1
   * @return new settings; these are unchanged
   * @throws ConfigException if {@code batchSize} is below 1
   * @since 0.2
   */
  public DeliveryOptions withBatchSize(int batchSize) {
    return new DeliveryOptions(concurrency, dispatchBatchSize, batchSize);
  }
}
