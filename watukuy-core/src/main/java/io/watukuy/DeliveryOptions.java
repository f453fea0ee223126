package io.watukuy;

/**
 * Engine-wide delivery settings.
 *
 * @param concurrency handlers running at once across all pollers, at least 1, default 8
 * @param dispatchBatchSize outbox rows loaded per read, at least 1, default 100 (guarantee G10)
 * @since 0.1
 */
public record DeliveryOptions(int concurrency, int dispatchBatchSize) {
  public static final int DEFAULT_CONCURRENCY = 8;
  public static final int DEFAULT_DISPATCH_BATCH_SIZE = 100;
  public static final DeliveryOptions DEFAULT =
      new DeliveryOptions(DEFAULT_CONCURRENCY, DEFAULT_DISPATCH_BATCH_SIZE);

  public DeliveryOptions {
    if (concurrency < 1)
      throw new ConfigException("delivery.concurrency must be >= 1, but was " + concurrency);
    if (dispatchBatchSize < 1)
      throw new ConfigException(
          "delivery.dispatchBatchSize must be >= 1, but was " + dispatchBatchSize);
  }
}
