package io.watukuy;

import org.jspecify.annotations.Nullable;

/**
 * A fenced write was made with a lease that is no longer the current lease of its key: it expired
 * and another instance acquired the key (a higher epoch), or it was released. The writer must drop
 * its in-memory work and stop writing (docs/architecture.md, "Commit protocol", rule 3;
 * docs/guarantees.md, G5). Never retried with the same lease.
 *
 * @since 0.1
 */
public final class LeaseLostException extends WatukuyException {
  /** The key whose lease was lost. */
  private final PollerKey key;

  /** The epoch the writer presented. */
  private final long heldEpoch;

  /** The stored epoch, or null when the key has no lease. */
  private final @Nullable Long currentEpoch;

  /**
   * Creates the exception; the message names the key and both epochs and ends with "stop writing
   * and re-acquire".
   *
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

  /**
   * The exception for a lease its holder gave up by its own account before a write, without asking
   * the store: the message names the key, the epoch and {@code reason}, and ends with "stop writing
   * and re-acquire". The engine throws it when an event would be handed to a handler under a lease
   * that has less than the hand-off margin left by the process's monotonic clock
   * (docs/guarantees.md, G5). {@link #currentEpoch()} is then {@code null}: not known. A factory,
   * not a constructor, so that a store's {@code new LeaseLostException(key, epoch, null)} keeps
   * naming one constructor.
   *
   * @param key the key whose lease was lost
   * @param heldEpoch the epoch the holder had
   * @param reason why the holder counts the lease as lost, for the message
   * @return the exception, to be thrown
   * @since 0.2
   */
  public static LeaseLostException givenUp(PollerKey key, long heldEpoch, String reason) {
    return new LeaseLostException(
        key,
        heldEpoch,
        "lease lost for "
            + key
            + ": held epoch "
            + heldEpoch
            + ", "
            + reason
            + "; stop writing and re-acquire");
  }

  private LeaseLostException(PollerKey key, long heldEpoch, String message) {
    super(message, null);
    this.key = key;
    this.heldEpoch = heldEpoch;
    this.currentEpoch = null;
  }

  /**
   * The key whose lease was lost.
   *
   * @return the key
   */
  public PollerKey key() {
    return key;
  }

  /**
   * The epoch of the lease the writer presented.
   *
   * @return the stale epoch
   */
  public long heldEpoch() {
    return heldEpoch;
  }

  /**
   * The epoch of the key's stored lease at the time of the write, expired or not.
   *
   * @return the current epoch, or {@code null} when the key has no lease (released, or the key was
   *     deleted) or when the holder gave the lease up by its own clock without asking the store
   */
  public @Nullable Long currentEpoch() {
    return currentEpoch;
  }

  /** {@inheritDoc} Always {@code false}: the same lease never becomes current again. */
  @Override
  public boolean retryable() {
    return false;
  }
}
