package io.watukuy.internal;

import io.watukuy.CancellationToken;
import io.watukuy.FetchContext;
import io.watukuy.Http;
import io.watukuy.HttpResult;
import io.watukuy.Lane;
import io.watukuy.Poller;
import io.watukuy.internal.http.DefaultHttp;
import io.watukuy.internal.http.HttpScope;
import io.watukuy.spi.HttpValidator;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * What fetch code and the HTTP helper see of one page request: the {@link FetchContext} (cursor,
 * page, lane, cancellation, logger, {@code http()}) and the {@link HttpScope} the helper calls back
 * into for every request (validators, clock, timeout, secrets, a rate-budget token before each
 * send, every response observed). A stage of its own so that a request's callbacks land in one
 * small object holding only what a request may touch, never in the run's orchestration. One per
 * page; used from the fetching thread only.
 */
final class FetchScope implements FetchContext<Object>, HttpScope {
  private final CycleContext cx;
  private final Poller<Object> poller;
  private final Logger pollerLog;
  private final KeyRun run;
  private final Lane laneName;
  private final @Nullable Object cursor;
  private final int page;
  private @Nullable Http http;

  FetchScope(
      CycleContext cx,
      Poller<Object> poller,
      Logger pollerLog,
      KeyRun run,
      Lane laneName,
      @Nullable Object cursor,
      int page) {
    this.cx = cx;
    this.poller = poller;
    this.pollerLog = pollerLog;
    this.run = run;
    this.laneName = laneName;
    this.cursor = cursor;
    this.page = page;
  }

  @Override
  public @Nullable Object cursor() {
    return cursor;
  }

  @Override
  public int page() {
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
    return () -> run.limits.expired(cx.time());
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
  public Set<String> secretValues() {
    return cx.secrets();
  }

  @Override
  public void observe(HttpResult result) {
    run.lastResponse = result;
  }

  @Override
  public void beforeSend() {
    String budget = poller.budget();
    if (budget == null) return;
    try {
      cx.budgets()
          .acquire(
              budget,
              run.key,
              laneName,
              poller.weight(),
              poller.maxWait(),
              run.limits.deadlineNanos(),
              run.limits.stopping(),
              wait -> cx.listener().onBudgetWait(run.key, budget, wait));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      InterruptedIOException cause =
          new InterruptedIOException("interrupted while waiting for a token of budget " + budget);
      cause.initCause(e);
      throw new UncheckedIOException(cause.getMessage(), cause);
    }
  }
}
