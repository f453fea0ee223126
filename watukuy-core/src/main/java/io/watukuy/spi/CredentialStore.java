package io.watukuy.spi;

import io.watukuy.StoreException;
import java.util.List;
import java.util.Optional;

/**
 * The credentials table: named secrets kept between runs and shared by every instance on one store
 * (docs/stores.md, "CredentialStore"; docs/config.md, "auth"). Every store module's {@link
 * StateStore} also implements it, in the same database as the poller state.
 *
 * <p>Writes are a compare-and-set on the row's {@link StoredCredential#version() version}; that is
 * the only coordination the store gives and the only one the refresh protocol needs: an instance
 * claims the right to refresh by writing version {@code v + 1} with its claim, refreshes, and
 * writes {@code v + 2} with the new secret and no claim; an instance whose write loses re-reads the
 * row instead of using what it holds.
 *
 * <p>The store keeps {@link StoredCredential#sealed()} byte for byte and never logs it; a sealed
 * string must not contain U+0000, which PostgreSQL's {@code text} refuses. Instants ({@link
 * StoredCredential#claimUntil()}, {@link StoredCredential#updatedAt()}) are kept to the
 * millisecond, like every instant a store keeps (docs/stores.md, "General rules"): a finer one
 * comes back truncated. Implementations are thread-safe and keep a row's fields consistent (a
 * reader never sees a version with another version's secret). {@code CredentialStoreContractTest}
 * in watukuy-testing certifies an implementation.
 *
 * @since 0.1
 */
public interface CredentialStore {

  /**
   * Reads one credential.
   *
   * @param name the credential's name
   * @return the current row, or empty when none was ever written under that name (or it was
   *     deleted)
   * @throws StoreException when the store cannot be reached
   */
  Optional<StoredCredential> loadCredential(String name);

  /**
   * Writes {@code next} if the stored version is still {@code expectedVersion}.
   *
   * @param expectedVersion the version the caller read, or 0 to insert a row that must not exist
   * @param next the row to write; its version must be {@code expectedVersion + 1}
   * @return true when written; false when the stored version was another (or, for 0, a row existed)
   *     and nothing was written
   * @throws IllegalArgumentException if {@code next.version() != expectedVersion + 1}
   * @throws StoreException when the store cannot be reached; whether the write happened is then
   *     unknown, and the caller re-reads
   */
  boolean compareAndSetCredential(long expectedVersion, StoredCredential next);

  /**
   * Deletes a credential whatever its version (an operator's {@code auth delete}).
   *
   * @param name the credential's name
   * @return true when a row was deleted
   * @throws StoreException when the store cannot be reached
   */
  boolean deleteCredential(String name);

  /**
   * The names of the stored credentials, sorted, for {@code inspect}; never their secrets.
   *
   * @return every stored credential's name, in ascending {@link String#compareTo} order (whatever a
   *     database's collation), unmodifiable
   * @throws StoreException when the store cannot be reached
   */
  List<String> listCredentials();
}
