package io.watukuy.spi;

/**
 * What a {@link StateStore} offers. Every built-in store offers all three.
 *
 * @param transactions {@code commitPoll} is atomic (required: a store without it cannot be a
 *     watukuy store, guarantee G4)
 * @param log the optional replay log is kept
 * @param streaming {@code streamIdentities} walks the snapshot in batches without loading it
 * @since 0.1
 */
public record StoreCapabilities(boolean transactions, boolean log, boolean streaming) {
  /** All capabilities. */
  public static final StoreCapabilities ALL = new StoreCapabilities(true, true, true);
}
