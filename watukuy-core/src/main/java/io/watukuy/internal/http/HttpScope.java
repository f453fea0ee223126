package io.watukuy.internal.http;

import io.watukuy.HttpResult;
import io.watukuy.RequestSigner;
import io.watukuy.spi.HttpValidator;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What {@link DefaultHttp} needs from the engine for one fetch call: who is fetching, the stored
 * validators, the clock, the poller's request timeout, the secrets to hide and where to report
 * throttling fields. The engine supplies a fresh scope per fetch; calls come from the fetching
 * thread only.
 */
public interface HttpScope {

  /** The poller name, for logs. */
  String poller();

  /** The partition, {@code ""} when unpartitioned, for logs. */
  String partition();

  /** 1-based page of the cycle, for logs. */
  int page();

  /**
   * Whether a 304 may end the cycle as not modified: only on page 1 of a lane whose previous cycle
   * ended on page 1 (docs/architecture.md, "304 Not Modified"). When false, the helper sends no
   * validators at all: a 304 it could not trust would only cost a second request.
   */
  boolean trustNotModified();

  /**
   * Whether validators of a 200 are worth storing: on page 1 of the live lane, where a later cycle
   * may trust a 304. Elsewhere no 304 is ever trusted, so storing them would only cost writes.
   */
  boolean keepsValidators();

  /**
   * The validator stored for a URL of this poller key, or null.
   *
   * @param urlHash lowercase hex SHA-256 of the UTF-8 request URL, query included
   */
  @Nullable HttpValidator loadValidator(String urlHash);

  /** Stores (replaces) the validator of a URL of this poller key, under the fetch's lease. */
  void storeValidator(String urlHash, HttpValidator validator);

  /** The engine's wall clock: receive times, Retry-After and reset conversion, storedAt. */
  Instant now();

  /** The poller's whole-request timeout, used when the request options set none. */
  Duration requestTimeout();

  /**
   * The largest response body read, in bytes: a longer one fails the request before it is buffered
   * (the poller's {@code request.maxBodySize}).
   */
  long maxBodySize();

  /**
   * The poller's request signer, or null: it signs every request that goes to {@link
   * #signerOrigin()}, and only those.
   */
  default @Nullable RequestSigner signer() {
    return null;
  }

  /** The origin the {@link #signer()} serves, {@code scheme://host:port}; null without one. */
  default @Nullable String signerOrigin() {
    return null;
  }

  /**
   * Values from {@code ${ENV}} substitutions and the signer's current credentials, hidden wherever
   * they appear in messages.
   */
  Set<String> secretValues();

  /**
   * Called once per call of {@code get}, {@code post} or {@code put}, before anything is sent
   * (redirect hops and budget waits come after), with what makes the request what it is. The engine
   * compares the first request of a page with the first request of the page before it in the same
   * lane and cycle: an equal one would only fetch the same page again, so the engine refuses it by
   * throwing (docs/operations.md, "Stalled lanes").
   *
   * @param method {@code GET}, {@code POST} or {@code PUT}
   * @param target the URL with its query, as it would be sent
   * @param headers the request options' headers
   * @param body the request body, or null for none
   * @throws RuntimeException when the request must not be sent
   */
  default void beforeRequest(
      String method, String target, Map<String, String> headers, byte @Nullable [] body) {}

  /**
   * Called before every request is sent, each retry and repeat included: charges the poller's rate
   * budget one token, waiting for it when there is none (guarantee G6). Does nothing when the
   * poller names no budget.
   *
   * @throws io.watukuy.BudgetTimeoutException when no token came in time; the request must not be
   *     sent
   */
  default void beforeSend() {}

  /**
   * Called with every response the helper receives (2xx, 304 and error statuses alike) before it
   * returns or throws, so the scheduler sees {@link HttpResult#retryAfter()} and {@link
   * HttpResult#rateLimit()} even when fetch code swallows the exception.
   */
  void observe(HttpResult result);

  /**
   * The attempt number of the first send of a request: 1, or one more than the attempt that last
   * sent the same method and URL for this key when that one failed or was answered 408, 429 or 5xx
   * ({@link io.watukuy.RequestInfo#attempt()}).
   *
   * @param method the method of the helper's call
   * @param target the URL with its query, as the call sends it first
   */
  default int firstAttempt(String method, String target) {
    return 1;
  }

  /**
   * Called once per request sent (each redirect hop and retry), when it was answered or failed,
   * before the helper goes on: for {@link io.watukuy.WatukuyListener#onRequest}.
   *
   * @param method the method of the helper's call
   * @param target the URL of the helper's call, as it was sent first
   * @param request what this send was
   */
  default void sent(String method, String target, io.watukuy.RequestInfo request) {}

  /**
   * Called once per request about to be sent (each redirect hop and retry), after {@link
   * #beforeSend} and just before the send: for {@link io.watukuy.WatukuyListener#onRequestStart}.
   * {@link #sent} for the same attempt follows.
   *
   * @param request what this send is, its URL with secrets hidden
   */
  default void sending(io.watukuy.RequestStart request) {}
}
