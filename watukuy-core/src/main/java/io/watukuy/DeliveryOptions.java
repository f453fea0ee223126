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
   * outbox read. Measured with the bench's snapshot phase ({@code watukuy-bench e2e --store sqlite
   * --items 20000 --phases snapshot --handler single|batch --batch-size N}, pages of 500, a busy
   * 2-core machine, so compare ratios): the first sync against the plain fetch + parse floor went
   * from 0.039 and 0.060 (two runs) with a handler per event (4 960 ack writes) to 0.073 with
   * batches of 10 (2 000 writes) and 0.084 and 0.099 with 100 (200 writes, under half the ack
   * time); 500 (one batch per page, 40 writes) reached 0.069, no better, since the page's commit
   * then dominates. A crash repeats up to {@code concurrency × batchSize} events (G9) and a failed
   * file write throws a whole batch away, so the default stays at the smallest size that takes most
   * of the gain.
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
