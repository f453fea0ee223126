package io.watukuy.auth;

import com.nimbusds.oauth2.sdk.ErrorObject;
import com.nimbusds.oauth2.sdk.ParseException;
import com.nimbusds.oauth2.sdk.TokenRequest;
import com.nimbusds.oauth2.sdk.TokenResponse;
import com.nimbusds.oauth2.sdk.http.HTTPRequest;
import com.nimbusds.oauth2.sdk.http.HTTPResponse;
import com.nimbusds.oauth2.sdk.token.AccessToken;
import io.watukuy.OutgoingRequest;
import io.watukuy.TimeSource;
import io.watukuy.Watukuy;
import io.watukuy.auth.ClientCredentialsSigner.TokenEndpointException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
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
  private final Duration firstBackoff;
  private final Duration timeout;
  private final TimeSource time;
  private final String refused;
  private final Function<Instant, TokenRequest> grant;
  private final Supplier<Collection<String>> secrets;

  // Guarded by this.
  private @Nullable String token;
  private @Nullable Instant renewAt;
  private @Nullable RuntimeException failure;
  private @Nullable Instant retryAt;
  private Duration backoff;
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
    this.firstBackoff = settings.backoff;
    this.backoff = settings.backoff;
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
    if (failure != null && retryAt != null && now.isBefore(retryAt)) throw failure;
    try {
      request(now);
      failure = null;
      retryAt = null;
      backoff = firstBackoff;
      return Objects.requireNonNull(token);
    } catch (RuntimeException e) {
      failure = e;
      retryAt = now.plus(backoff);
      Duration doubled = backoff.multipliedBy(2);
      backoff =
          doubled.compareTo(ClientCredentialsSigner.MAX_BACKOFF) > 0
              ? ClientCredentialsSigner.MAX_BACKOFF
              : doubled;
      throw e;
    }
  }

  private void request(Instant now) {
    HTTPRequest http = grant.apply(now).toHTTPRequest();
    http.setConnectTimeout((int) timeout.toMillis());
    http.setReadTimeout((int) timeout.toMillis());
    http.setFollowRedirects(false);
    requests++;
    HTTPResponse response;
    try {
      response = http.send();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "token endpoint " + url + " failed: " + transportFailure(e), e);
    }
    TokenResponse parsed;
    try {
      parsed = TokenResponse.parse(response);
    } catch (ParseException e) {
      throw new TokenEndpointException(
          "token endpoint "
              + url
              + " answered HTTP "
              + response.getStatusCode()
              + " without a token response: "
              + hidden(e.getMessage()));
    }
    if (!parsed.indicatesSuccess()) {
      ErrorObject error = parsed.toErrorResponse().getErrorObject();
      int status = response.getStatusCode();
      if (error.getCode() == null || (status != 400 && status != 401)) {
        // RFC 6749 section 5.2 answers a refused grant or client with 400 or 401; anything else (a
        // 404 from a wrong tokenUrl, a proxy's 403 or 5xx page) is about the URL, not the secret.
        throw new TokenEndpointException(
            "token endpoint "
                + url
                + " answered HTTP "
                + status
                + " without a token response"
                + (status == 404 || status == 405 ? "; check tokenUrl" : ""));
      }
      String description = error.getDescription();
      throw new TokenEndpointException(
          "token endpoint "
              + url
              + " refused "
              + refused
              + ": HTTP "
              + status
              + " "
              + error.getCode()
              + (description == null ? "" : " (" + hidden(description) + ")"));
    }
    AccessToken access = parsed.toSuccessResponse().getTokens().getAccessToken();
    token = access.getValue();
    long lifetime = access.getLifetime();
    if (lifetime <= 0) {
      renewAt = null;
    } else {
      Duration life = Duration.ofSeconds(lifetime);
      Duration early =
          earlyRefresh.compareTo(life.dividedBy(2)) > 0 ? life.dividedBy(2) : earlyRefresh;
      renewAt = now.plus(life).minus(early);
    }
  }

  /** What went wrong on the way, in words: "connection refused", "timed out after 10s", … */
  private String transportFailure(IOException e) {
    if (e instanceof java.net.ConnectException) return "connection refused";
    if (e instanceof java.net.SocketTimeoutException)
      return "no answer within " + io.watukuy.sink.SinkConfig.formatDuration(timeout);
    if (e instanceof java.net.UnknownHostException) return "unknown host " + e.getMessage();
    String m = e.getMessage();
    return e.getClass().getSimpleName() + (m == null ? "" : " (" + hidden(m) + ")");
  }

  // A description the server wrote may quote what it was sent.
  private String hidden(@Nullable String text) {
    // The engine's redaction: every encoding, one pass, a short secret only as a whole token.
    return Watukuy.redaction(List.copyOf(secrets.get())).apply(text);
  }
}
