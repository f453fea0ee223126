package io.watukuy.auth;

import io.watukuy.TimeSource;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The settings every OAuth2 signer's builder shares: the token endpoint, how early a token is
 * replaced, the backoff after a failed token request, its timeout and the clock. Not thread-safe.
 *
 * @param <B> the concrete builder, returned by each setter
 */
public abstract class TokenSignerBuilder<B extends TokenSignerBuilder<B>> {
  final URI tokenUrl;
  Duration earlyRefresh = ClientCredentialsSigner.DEFAULT_EARLY_REFRESH;
  Duration backoff = ClientCredentialsSigner.DEFAULT_BACKOFF;
  Duration timeout = ClientCredentialsSigner.DEFAULT_TIMEOUT;
  TimeSource time = TimeSource.system();

  TokenSignerBuilder(String tokenUrl) {
    this.tokenUrl = Credentials.tokenUrl(tokenUrl);
  }

  @SuppressWarnings("unchecked")
  private B self() {
    return (B) this;
  }

  /**
   * How long before its expiry a token is replaced; at most half its lifetime is used. Default
   * {@link ClientCredentialsSigner#DEFAULT_EARLY_REFRESH}.
   *
   * @throws IllegalArgumentException if negative
   */
  public B earlyRefresh(Duration earlyRefresh) {
    this.earlyRefresh = notNegative("earlyRefresh", earlyRefresh);
    return self();
  }

  /**
   * The first wait after a failed token request; it doubles after each failure up to {@link
   * ClientCredentialsSigner#MAX_BACKOFF}. Default {@link ClientCredentialsSigner#DEFAULT_BACKOFF}.
   *
   * @throws IllegalArgumentException if not positive
   */
  public B backoff(Duration backoff) {
    this.backoff = positive("backoff", backoff);
    return self();
  }

  /**
   * Connect and read timeout of a token request. Default {@link
   * ClientCredentialsSigner#DEFAULT_TIMEOUT}.
   *
   * @throws IllegalArgumentException if not positive
   */
  public B timeout(Duration timeout) {
    this.timeout = positive("timeout", timeout);
    return self();
  }

  /** The clock of expiries and back-offs. Default the system clock. */
  public B time(TimeSource time) {
    this.time = Objects.requireNonNull(time, "time");
    return self();
  }

  /** Scopes as given, each checked: not blank, no space (the parameter is space-separated). */
  static List<String> checkedScopes(List<String> scopes) {
    for (String s : scopes) {
      if (s.isBlank() || s.contains(" ")) {
        throw new IllegalArgumentException("scope '" + s + "' is empty or has a space");
      }
    }
    return List.copyOf(scopes);
  }

  static Duration positive(String field, Duration d) {
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(field + " must be > 0, but was " + d);
    }
    return d;
  }

  private static Duration notNegative(String field, Duration d) {
    if (d.isNegative()) throw new IllegalArgumentException(field + " must be >= 0, but was " + d);
    return d;
  }
}
