package io.watukuy.spi;

import java.time.Instant;
import java.util.Objects;

/**
 * A subject's data key for sealed documents (docs/effects.md, "Sealed documents"), kept wrapped:
 * {@code wrappedKey} is the AES-256 key sealed under the top-level {@code secretKey} ({@link
 * io.watukuy.SealingKeys}), so the store never holds it in clear. Erasing the subject deletes the
 * row, which makes every document sealed under {@code keyId} unreadable for good; a later seal for
 * the same subject makes a new key with a new id.
 *
 * @param subject the subject's name (a customer id, say)
 * @param keyId a random id, unique across the subject's keys over time, that each sealed document
 *     names
 * @param wrappedKey the data key, sealed
 * @param createdAt when the key was made
 * @since 0.1
 */
public record SubjectKey(String subject, String keyId, String wrappedKey, Instant createdAt) {
  /**
   * Creates a row.
   *
   * @throws NullPointerException if any field is null
   */
  public SubjectKey {
    Objects.requireNonNull(subject, "subject");
    Objects.requireNonNull(keyId, "keyId");
    Objects.requireNonNull(wrappedKey, "wrappedKey");
    Objects.requireNonNull(createdAt, "createdAt");
  }

  /** Names the subject and key id, never the key. */
  @Override
  public String toString() {
    return "SubjectKey[subject=" + subject + ", keyId=" + keyId + "]";
  }
}
