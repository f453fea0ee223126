package io.watukuy.spi;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The stored snapshot of one item: what the diff compares the next observation with.
 *
 * @param identity the item's identity (a string, or an integer as decimal text)
 * @param version the poller's version of the item, or {@code null} when the poller has none
 * @param hash lowercase hex SHA-256 of the RFC 8785 form of the item (or its fingerprint)
 * @param schemaVersion the poller's schema version when the row was written
 * @param payload the item's JSON text when the poller retains payloads, else {@code null}
 * @param orderingKey the ordering key of the item's events, kept so a delete keeps per-key order
 * @param seenAt when the row was last written: the item was last seen with a new version or hash
 * @since 0.1
 */
public record ItemRow(
    String identity,
    @Nullable String version,
    String hash,
    int schemaVersion,
    @Nullable String payload,
    String orderingKey,
    Instant seenAt) {
  /**
   * Creates a row.
   *
   * @param identity the item's identity
   * @param version the item's version, or {@code null}
   * @param hash the item's hash
   * @param schemaVersion the poller's schema version
   * @param payload the item's JSON text, or {@code null}
   * @param orderingKey the ordering key of the item's events
   * @param seenAt when the row was last written
   * @throws NullPointerException if {@code identity}, {@code hash}, {@code orderingKey} or {@code
   *     seenAt} is null
   */
  public ItemRow {
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(hash, "hash");
    Objects.requireNonNull(orderingKey, "orderingKey");
    Objects.requireNonNull(seenAt, "seenAt");
  }

  /**
   * The value the event id is built on (docs/architecture.md, "Ids, the outbox key").
   *
   * @return the version when the poller has one, else the hash
   */
  public String versionOrHash() {
    return version != null ? version : hash;
  }
}
