package io.watukuy;

/**
 * Engine-wide delivery settings.
 *
 * @param concurrency handlers running at once across all pollers, at least 1, default 8
 * @param dispatchBatchSize outbox rows loaded per read, at least 1, default 100 (guarantee G10)
 * @since 0.1
 */
public record DeliveryOptions(int concurrency, int dispatchBatchSize) {
  /** Default handlers running at once, engine-wide (docs/architecture.md, "Defaults"). */
  public static final int DEFAULT_CONCURRENCY = 8;

  /** Default outbox rows loaded per read (docs/architecture.md, "Defaults"). */
  public static final int DEFAULT_DISPATCH_BATCH_SIZE = 100;

  /**
   * Concurrency {@value #DEFAULT_CONCURRENCY}, batch size {@value #DEFAULT_DISPATCH_BATCH_SIZE}.
   */
  public static final DeliveryOptions DEFAULT =
      new DeliveryOptions(DEFAULT_CONCURRENCY, DEFAULT_DISPATCH_BATCH_SIZE);

  /**
   * Validates the settings.
   *
   * @param concurrency handlers running at once across all pollers; at least 1
   * @param dispatchBatchSize outbox rows loaded per read; at least 1
   * @throws ConfigException if a value is below 1; the message names the field and the value
   */
  public DeliveryOptions {
    if (concurrency < 1)
      throw new ConfigException("delivery.concurrency must be >= 1, but was " + concurrency);
    if (dispatchBatchSize < 1)
      throw new ConfigException(
          "delivery.dispatchBatchSize must be >= 1, but was " + dispatchBatchSize);
  }
}
