package io.watukuy.spi;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One row of the credentials table ({@link CredentialStore}): a named secret the engine keeps
 * between runs and shares between instances, such as an OAuth2 refresh token that rotates on every
 * use.
 *
 * <p>The store never sees the secret in clear: {@code sealed} is what the caller's sealing produced
 * (AES-GCM under a key id, see docs/config.md, "auth"), an opaque string the store keeps byte for
 * byte.
 *
 * @param name the credential's name, as configured ({@code auths:} name, or the poller's name for a
 *     poller's own {@code auth:}); 1 to 200 characters
 * @param version strictly increasing per name, from 1 for the first row; every write is a
 *     compare-and-set on it ({@link CredentialStore#compareAndSetCredential})
 * @param sealed the sealed secret; opaque to the store
 * @param claimOwner the instance that claimed the right to refresh this credential, or null when
 *     nobody holds the claim
 * @param claimUntil when that claim lapses (others may take it from then on); null exactly when
 *     {@code claimOwner} is null
 * @param updatedAt when this version was written, by the writer's clock
 * @since 0.1
 */
public record StoredCredential(
    String name,
    long version,
    String sealed,
    @Nullable String claimOwner,
    @Nullable Instant claimUntil,
    Instant updatedAt) {

  /**
   * Checks the row's shape.
   *
   * @throws NullPointerException if {@code name}, {@code sealed} or {@code updatedAt} is null
   * @throws IllegalArgumentException if {@code name} is empty or longer than 200 characters, {@code
   *     version} is below 1, or only one of {@code claimOwner} and {@code claimUntil} is given
   */
  public StoredCredential {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(sealed, "sealed");
    Objects.requireNonNull(updatedAt, "updatedAt");
    if (name.isEmpty() || name.length() > 200)
      throw new IllegalArgumentException("credential name must be 1 to 200 characters: " + name);
    if (version < 1)
      throw new IllegalArgumentException("credential version must be >= 1: " + version);
    if ((claimOwner == null) != (claimUntil == null))
      throw new IllegalArgumentException("claimOwner and claimUntil go together");
  }

  /**
   * Whether someone other than {@code owner} holds a claim that has not lapsed at {@code now}.
   *
   * @param owner the asking instance
   * @param now the asker's clock
   * @return true when another instance is refreshing this credential right now
   */
  public boolean claimedByAnother(String owner, Instant now) {
    return claimOwner != null
        && !claimOwner.equals(owner)
        && claimUntil != null
        && claimUntil.isAfter(now);
  }

  /**
   * The next version of this row with the given content.
   *
   * @param sealed the sealed secret of the next version
   * @param claimOwner the claim of the next version, or null to clear it
   * @param claimUntil the claim's end, null exactly when {@code claimOwner} is
   * @param now the writer's clock
   * @return a row whose version is this one's plus one
   */
  public StoredCredential next(
      String sealed, @Nullable String claimOwner, @Nullable Instant claimUntil, Instant now) {
    return new StoredCredential(name, version + 1, sealed, claimOwner, claimUntil, now);
  }
}
