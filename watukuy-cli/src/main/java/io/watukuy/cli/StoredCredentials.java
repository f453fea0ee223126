package io.watukuy.cli;

import io.watukuy.StoreException;
import io.watukuy.spi.CredentialStore;
import io.watukuy.spi.StateStore;
import io.watukuy.spi.StoredCredential;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The credentials table of the store a config names, for the signers its {@code auths:} make before
 * that store is open (docs/config.md, "auth"): the YAML is read first, the store opened after, and
 * {@link #bind} connects the two. A signer used before, or a store that keeps no credentials, fails
 * its request with a {@link StoreException} saying so.
 */
final class StoredCredentials implements CredentialStore {
  private final String storeName;
  private volatile @Nullable CredentialStore target;
  private volatile @Nullable String missing;

  /**
   * @param storeName the store as messages show it (no password)
   */
  StoredCredentials(String storeName) {
    this.storeName = storeName;
  }

  /** Connects the opened store; one that is no {@link CredentialStore} is remembered as such. */
  void bind(StateStore store) {
    if (store instanceof CredentialStore c) {
      target = c;
    } else {
      missing =
          "store "
              + storeName
              + " keeps no credentials table (grant: refreshToken needs one; memory, sqlite,"
              + " postgres, mariadb and redis stores do in releases that have it)";
    }
  }

  private CredentialStore target() {
    CredentialStore t = target;
    if (t != null) return t;
    throw new StoreException(
        missing != null ? missing : "store " + storeName + " is not open yet", null);
  }

  @Override
  public Optional<StoredCredential> loadCredential(String name) {
    return target().loadCredential(name);
  }

  @Override
  public boolean compareAndSetCredential(long expectedVersion, StoredCredential next) {
    return target().compareAndSetCredential(expectedVersion, next);
  }

  @Override
  public boolean deleteCredential(String name) {
    return target().deleteCredential(name);
  }

  @Override
  public List<String> listCredentials() {
    return target().listCredentials();
  }
}
