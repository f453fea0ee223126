package io.watukuy.auth;

import com.nimbusds.oauth2.sdk.TokenRequest;
import io.watukuy.OutgoingRequest;
import io.watukuy.TimeSource;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The token endpoint of an OAuth2 signer and the access token it last gave, shared by every grant
 * (client credentials, JWT bearer): the token is kept until {@code earlyRefresh} before its {@code
 * expires_in}; a 401 drops the token the refused request was signed with; a failing or refusing
 * endpoint is named in the message and asked again only after a backoff that doubles up to {@link
 * ClientCredentialsSigner#MAX_BACKOFF}, so no key, partition or retry can make a hot loop of token
 * requests. Token requests go out on their own connection, not through the poller's HTTP helper, so
 * they are not charged to the poller's rate budget.
 *
 * <p>Thread-safe: one token request at a time, shared by every thread.
 */
final class TokenEndpoint {

  private final URI url;
  private final Duration earlyRefresh;
  private final Duration timeout;
  private final TimeSource time;
  private final String refused;
  private final Function<Instant, TokenRequest> grant;
  private final Supplier<Collection<String>> secrets;

  // Guarded by this.
  private @Nullable String token;
  private @Nullable Instant renewAt;
  private final FailureBackoff backoff;
  private long requests;

  /**
   * @param settings the token URL, early refresh, backoff, timeout and clock
   * @param refused what the endpoint refuses, for messages: "the client credentials of watukuy"
   * @param grant the token request to send at the given instant (a fresh assertion, say)
   * @param secrets what to hide in text the endpoint wrote (a client secret, the last assertion)
   */
  TokenEndpoint(
      TokenSignerBuilder<?> settings,
      String refused,
      Function<Instant, TokenRequest> grant,
      Supplier<Collection<String>> secrets) {
    this.url = settings.tokenUrl;
    this.earlyRefresh = settings.earlyRefresh;
    this.backoff = new FailureBackoff(settings.backoff);
    this.timeout = settings.timeout;
    this.time = settings.time;
    this.refused = refused;
    this.grant = grant;
    this.secrets = secrets;
  }

  URI url() {
    return url;
  }

  synchronized long requests() {
    return requests;
  }

  /** The access token now held, or null; for {@code secretValues()}. */
  synchronized @Nullable String current() {
    return token;
  }

  /** Drops the token {@code request} was signed with, unless another thread already renewed it. */
  synchronized void unauthorized(OutgoingRequest request) {
    if (token != null && request.header("Authorization").orElse("").equals("Bearer " + token)) {
      token = null;
      renewAt = null;
    }
  }

  /**
   * The token to send now: the one held, or a new one from the endpoint.
   *
   * @throws RuntimeException naming the endpoint when it fails or refuses, also (without asking it
   *     again) until the backoff has passed
   */
  synchronized String token() {
    Instant now = time.now();
    if (token != null && (renewAt == null || now.isBefore(renewAt))) return token;
    backoff.throwIfWaiting(now);
    try {
      request(now);
      backoff.succeeded();
      return Objects.requireNonNull(token);
    } catch (RuntimeException e) {
      backoff.failed(e, now);
      throw e;
    }
  }

  private void request(Instant now) {
    requests++;
    TokenExchange.Tokens tokens =
        TokenExchange.send(grant.apply(now), url, timeout, refused, secrets.get());
    token = tokens.accessToken();
    long lifetime = tokens.lifetimeSeconds();
    if (lifetime <= 0) {
      renewAt = null;
    } else {
      Duration life = Duration.ofSeconds(lifetime);
      Duration early =
          earlyRefresh.compareTo(life.dividedBy(2)) > 0 ? life.dividedBy(2) : earlyRefresh;
      renewAt = now.plus(life).minus(early);
    }
  }
}
