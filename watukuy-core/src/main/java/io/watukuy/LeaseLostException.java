package io.watukuy;

import org.jspecify.annotations.Nullable;

/**
 * A fenced write was made with a lease that is no longer the current lease of its key: it
 * expired and another instance acquired the key (a higher epoch), or it was released. The
 * writer must drop its in-memory work and stop writing (How it works, commit protocol rule 3;
 * guarantee G5). Never retried with the same lease.
 *
 * @since 0.1
 */
public final class LeaseLostException extends WatukuyException {
  private final PollerKey key;
  private final long heldEpoch;
  private final @Nullable Long currentEpoch;

  /**
   * @param key the key whose lease was lost
   * @param heldEpoch the epoch the writer presented
   * @param currentEpoch the epoch now stored, or {@code null} when the key has no live lease
   */
  public LeaseLostException(PollerKey key, long heldEpoch, @Nullable Long currentEpoch) {
    super(
        "lease lost for "
            + key
            + ": held epoch "
            + heldEpoch
            + ", current "
            + (currentEpoch == null ? "none" : "epoch " + currentEpoch)
            + "; stop writing and re-acquire",
        null);
    this.key = key;
    this.heldEpoch = heldEpoch;
    this.currentEpoch = currentEpoch;
  }

  public PollerKey key() {
    return key;
  }

  public long heldEpoch() {
    return heldEpoch;
  }

  public @Nullable Long currentEpoch() {
    return currentEpoch;
  }

  @Override
  public boolean retryable() {
    return false;
  }
}
