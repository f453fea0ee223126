package io.watukuy;

import java.util.Set;

/**
 * Adds credentials to the requests a poller sends through {@link FetchContext#http()}: a bearer
 * token, Basic credentials, an API key, an HMAC signature over the request. Set with {@link
 * Poller.Builder#requestSigner(String, RequestSigner)}, which also names the one origin (scheme,
 * host, port) the signer serves.
 *
 * <p>The helper calls {@link #sign} once for every request that goes out to that origin, each
 * redirect hop and each retry included, right before it is sent and after the redirect target is
 * known: a next-page link or a redirect to the same origin is signed, one to any other origin is
 * sent unsigned (credentials go only to the origin configured). Requests the signer makes on its
 * own (a token endpoint) do not go through the helper, so they are not charged to the poller's
 * budget.
 *
 * <p>Implementations are shared by every key and partition of the poller and called from several
 * threads at once: they must be thread-safe. An exception thrown by {@link #sign} fails that
 * request as a fetch error: the key backs off and records the message as its {@code lastError}, so
 * the message must name what failed (a token endpoint, say) and never quote a secret.
 */
@FunctionalInterface
public interface RequestSigner {

  /**
   * Adds headers (or a query parameter) to one outgoing request.
   *
   * @param request the request about to be sent; its body is the exact bytes that will be sent
   * @throws RuntimeException when the request cannot be signed (no token could be had): the request
   *     is not sent and the fetch fails with this exception
   */
  void sign(OutgoingRequest request);

  /**
   * Called when a request this signer signed was answered {@code 401 Unauthorized}. Returning true
   * makes the helper sign that same request again and send it once more (one retry, never more per
   * request); a second 401 is the fetch's error. A token-based signer drops its cached token here.
   *
   * @param request the request that was refused, as it was signed
   * @return whether signing again may help; false (the default) returns the 401 as it is
   */
  default boolean retryAfterUnauthorized(OutgoingRequest request) {
    return false;
  }

  /**
   * The credentials this signer sends now (tokens, keys), hidden wherever they would appear in a
   * message, a log, a stored error, {@code inspect} or a parked row. Read again for every request,
   * so a token fetched a moment ago is covered. Empty by default.
   */
  default Set<String> secretValues() {
    return Set.of();
  }
}
