package io.watukuy.internal;

import io.watukuy.CancellationToken;
import io.watukuy.FetchContext;
import io.watukuy.Http;
import io.watukuy.HttpResult;
import io.watukuy.Lane;
import io.watukuy.Poller;
import io.watukuy.RequestInfo;
import io.watukuy.RequestSigner;
import io.watukuy.RequestStart;
import io.watukuy.internal.http.DefaultHttp;
import io.watukuy.internal.http.HttpScope;
import io.watukuy.spi.HttpValidator;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * What fetch code and the HTTP helper see of one page request: the {@link FetchContext} (cursor,
 * page, lane, cancellation, logger, {@code http()}) and the {@link HttpScope} the helper calls back
 * into for every request (validators, clock, timeout, secrets, a rate-budget token before each
 * send, every response observed). A stage of its own so that a request's callbacks land in one
 * small object holding only what a request may touch, never in the run's orchestration. One per
 * page; used from the fetching thread only, which for a page fetched ahead ({@link Prefetch}) is
 * not the cycle's thread: so it writes nothing of the run. The responses it sees stay here until
 * the page loop takes the page ({@link #lastResponse}), and a page dropped unseen ({@link
 * #discard}) leaves no trace in the run.
 */
final class FetchScope implements FetchContext<Object>, HttpScope {
  private final CycleContext cx;
  private final Poller<Object> poller;
  private final Logger pollerLog;
  private final KeyRun run;
  private final Lane laneName;
  private final @Nullable Object cursor;
  private final int page;
  private final @Nullable String previousRequest;
  private static final String DROPPED =
      "the page fetched ahead was dropped: its request is not sent";
  private @Nullable Http http;
  private @Nullable String firstRequest;
  private boolean refused;
  private boolean pageRead;
  private @Nullable HttpResult lastResponse;
  // Set by the cycle's thread when a page fetched ahead is dropped: ends its budget wait, cancels
  // its fetch, and sends nothing more.
  private volatile boolean discarded;

  FetchScope(
      CycleContext cx,
      Poller<Object> poller,
      Logger pollerLog,
      KeyRun run,
      Lane laneName,
      @Nullable Object cursor,
      int page,
      @Nullable String previousRequest) {
    this.cx = cx;
    this.poller = poller;
    this.pollerLog = pollerLog;
    this.run = run;
    this.laneName = laneName;
    this.cursor = cursor;
    this.page = page;
    this.previousRequest = previousRequest;
  }

  /**
   * The first HTTP request this page made through {@link #http()}, as a digest of method, URL,
   * headers and body; null when fetch sent none through the helper. What the next page's first
   * request is compared with.
   */
  @Nullable String firstRequest() {
    return firstRequest;
  }

  /** Whether this page's first request repeated the previous page's and was refused. */
  boolean refused() {
    return refused;
  }

  /** Whether fetch read {@link #page()}: then the page number is part of what it requests. */
  boolean pageRead() {
    return pageRead;
  }

  /**
   * The last response the HTTP helper saw for this page, or null: what the page loop hands the run
   * ({@link KeyRun#lastResponse}, for throttling and pacing) once it takes the page.
   */
  @Nullable HttpResult lastResponse() {
    return lastResponse;
  }

  /**
   * Drops a page fetched ahead: its cancellation token reads true, a budget wait ends, and no
   * further request of it is sent. Called from the cycle's thread.
   */
  void discard() {
    discarded = true;
  }

  @Override
  public @Nullable Object cursor() {
    return cursor;
  }

  @Override
  public int page() {
    pageRead = true;
    return page;
  }

  @Override
  public String poller() {
    return poller.name();
  }

  @Override
  public String partition() {
    return run.key.partition();
  }

  @Override
  public Lane lane() {
    return laneName;
  }

  @Override
  public int attempt() {
    return 1;
  }

  @Override
  public CancellationToken cancellation() {
    return () -> discarded || run.limits.expired(cx.time());
  }

  @Override
  public Logger logger() {
    return pollerLog;
  }

  @Override
  public Http http() {
    if (http == null) http = new DefaultHttp(cx.httpClient().get(), this);
    return http;
  }

  // ---- HttpScope

  @Override
  public void beforeRequest(
      String method, String target, Map<String, String> headers, byte @Nullable [] body) {
    if (firstRequest != null) return; // a retry or a second call within the page: not a new page
    firstRequest = RequestDigest.of(method, target, headers, body);
    if (firstRequest.equals(previousRequest)) {
      refused = true;
      throw new RepeatedRequest();
    }
  }

  @Override
  public boolean trustNotModified() {
    // Only a one-page listing can be vouched for by one 304 (docs/architecture.md,
    // "304 Not Modified").
    return laneName == Lane.LIVE && page == 1 && run.previousPages() == 1;
  }

  @Override
  public boolean keepsValidators() {
    return laneName == Lane.LIVE && page == 1;
  }

  @Override
  public @Nullable HttpValidator loadValidator(String urlHash) {
    return cx.store().getValidator(run.key, urlHash).orElse(null);
  }

  @Override
  public void storeValidator(String urlHash, HttpValidator validator) {
    cx.store().setValidator(run.key, run.keeper.lease(), urlHash, validator);
  }

  @Override
  public Instant now() {
    return cx.time().now();
  }

  @Override
  public Duration requestTimeout() {
    return poller.requestTimeout();
  }

  @Override
  public long maxBodySize() {
    return poller.maxBodySize();
  }

  @Override
  public Set<String> secretValues() {
    RequestSigner signer = poller.requestSigner();
    if (signer == null) return cx.secrets();
    Set<String> signerSecrets = signer.secretValues();
    if (signerSecrets.isEmpty()) return cx.secrets();
    Set<String> all = new HashSet<>(cx.secrets());
    all.addAll(signerSecrets);
    return all;
  }

  @Override
  public @Nullable RequestSigner signer() {
    return poller.requestSigner();
  }

  @Override
  public @Nullable String signerOrigin() {
    return poller.signerOrigin();
  }

  @Override
  public void observe(HttpResult result) {
    lastResponse = result;
  }

  @Override
  public int firstAttempt(String method, String target) {
    return cx.resends().firstAttempt(run.key, method, target);
  }

  @Override
  public void sent(String method, String target, RequestInfo request) {
    cx.resends().sent(run.key, method, target, request);
    cx.listener().onRequest(run.key, request);
  }

  @Override
  public void sending(RequestStart request) {
    cx.listener().onRequestStart(run.key, request);
  }

  @Override
  public void beforeSend() {
    if (discarded) throw new UncheckedIOException(new InterruptedIOException(DROPPED));
    String budget = poller.budget();
    if (budget == null) return;
    // Set when the request has to wait, so that exactly one onBudgetWaitEnd follows onBudgetWait.
    Instant[] waitingSince = {null};
    try {
      cx.budgets()
          .acquire(
              budget,
              run.key,
              laneName,
              poller.weight(),
              poller.maxWait(),
              run.limits.deadlineNanos(),
              () -> discarded || run.limits.stopping().getAsBoolean(),
              wait -> {
                waitingSince[0] = cx.time().now();
                cx.listener().onBudgetWait(run.key, budget, wait);
              });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      InterruptedIOException cause =
          new InterruptedIOException("interrupted while waiting for a token of budget " + budget);
      cause.initCause(e);
      UncheckedIOException failure = new UncheckedIOException(cause.getMessage(), cause);
      waitEnded(budget, waitingSince[0], failure);
      throw failure;
    } catch (RuntimeException e) {
      waitEnded(budget, waitingSince[0], e);
      throw e;
    }
    waitEnded(budget, waitingSince[0], null);
  }

  private void waitEnded(String budget, @Nullable Instant since, @Nullable Throwable failure) {
    if (since == null) return; // the token came at once: no wait was announced
    Duration waited = Duration.between(since, cx.time().now());
    cx.listener()
        .onBudgetWaitEnd(run.key, budget, waited.isNegative() ? Duration.ZERO : waited, failure);
  }
}
