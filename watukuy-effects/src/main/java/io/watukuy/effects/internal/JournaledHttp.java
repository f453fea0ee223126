package io.watukuy.effects.internal;

import io.watukuy.TimeSource;
import io.watukuy.effects.EffectHttp;
import io.watukuy.effects.HttpRetriesExhausted;
import io.watukuy.internal.http.BodyFormats;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@link EffectHttp} over the JDK client (docs/effects.md, "HTTP calls"): journaled through the
 * invocation, with the bounded re-send loop inside the journaled call, so only a usable response is
 * ever recorded.
 */
final class JournaledHttp implements EffectHttp {
  /** Response headers that carry credentials: never journaled. */
  private static final Set<String> SECRET_HEADERS =
      Set.of("authorization", "proxy-authorization", "cookie", "set-cookie", "set-cookie2");

  private final InvocationContext ctx;
  private final EffectServices services;
  private final HttpClient client;
  private final TimeSource time;

  JournaledHttp(InvocationContext ctx, EffectServices services) {
    this.ctx = ctx;
    this.services = services;
    this.client = services.http();
    this.time = services.time();
  }

  @Override
  public Response send(Request request) throws IOException, InterruptedException {
    for (String name : request.headers().keySet())
      if (name.equalsIgnoreCase(IDEMPOTENCY_KEY))
        throw new IllegalArgumentException(
            "effect "
                + ctx.effect()
                + ": "
                + request.label()
                + " sets "
                + IDEMPOTENCY_KEY
                + " itself; every journaled request carries its own key there, per event and call");
    String keyName = "HTTP " + request.method();
    String canonical =
        CallKeys.canonicalArgs(
            ctx.effect(), request.label(), Arrays.asList(request.url().toString(), request.body()));
    try {
      return ctx.journaled(
          keyName,
          request.label(),
          canonical,
          Response.class,
          request.subject(),
          key -> exchange(request, key));
    } catch (HttpRetriesExhausted e) {
      e.retryAfter().ifPresent(ctx::serverAskedToWait);
      throw e;
    } catch (IOException | InterruptedException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(request.label() + ": " + e.getMessage(), e);
    }
  }

  /** The re-send loop: a usable response, or {@link HttpRetriesExhausted}. */
  private Response exchange(Request request, String key) throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(request.url())
            .timeout(REQUEST_TIMEOUT)
            .method(
                request.method(),
                request.body() == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(request.body()));
    request.headers().forEach(b::header);
    b.header(IDEMPOTENCY_KEY, ctx.idempotencyKey(key));
    HttpRequest http = b.build();
    Duration delay = FIRST_RESEND_DELAY;
    Duration longestWait = null;
    int lastStatus = 0;
    IOException lastError = null;
    for (int attempt = 1; ; attempt++) {
      Duration wait = null;
      HttpResponse<LimitedBody.Body> r = null;
      LimitedBody.Handler body = LimitedBody.handler(MAX_RESPONSE_BYTES);
      try {
        r = client.send(http, body);
      } catch (IOException e) {
        // The receiver answered, with a body too large to journal: a re-send would only make it
        // do its work again. The invocation fails under its backoff, naming the limit.
        if (body.overLimit()) throw tooLarge(request, body.status());
        lastStatus = 0;
        lastError = e;
      }
      if (r != null) {
        if (!resend(r.statusCode())) return response(request, r);
        lastStatus = r.statusCode();
        lastError = null;
        wait =
            RetryAfterHeader.parse(r.headers().firstValue("Retry-After").orElse(null), time.now());
        if (wait != null && (longestWait == null || wait.compareTo(longestWait) > 0))
          longestWait = wait;
      }
      // A server asking for longer than the next re-send is left alone: the invocation waits.
      boolean serverWantsLonger = wait != null && wait.compareTo(delay) > 0;
      if (attempt >= MAX_ATTEMPTS || serverWantsLonger)
        throw new HttpRetriesExhausted(
            request.label(), attempt, lastStatus, longestWait, lastError);
      // The row shows why a call that hangs or re-sends has not come back (docs/effects.md).
      ctx.resending(
          request.label()
              + ": "
              + (lastError != null
                  ? lastError.getClass().getSimpleName() + ": " + lastError.getMessage()
                  : "HTTP " + lastStatus)
              + ", re-sending (attempt "
              + (attempt + 1)
              + " of "
              + MAX_ATTEMPTS
              + ")");
      time.sleep(delay);
      delay = delay.multipliedBy(2);
    }
  }

  /** The failure of a response over {@link #MAX_RESPONSE_BYTES}: effect, URL (secrets hidden). */
  private IOException tooLarge(Request request, int status) {
    return new IOException(
        "effect "
            + ctx.effect()
            + ": the response to "
            + request.method()
            + " "
            + services.url(request.url().toString())
            + " (status "
            + status
            + ") is larger than "
            + MAX_RESPONSE_BYTES
            + " bytes, the most a journaled response may hold; nothing was recorded");
  }

  static boolean resend(int status) {
    return status == 408 || status == 425 || status == 429 || (status >= 500 && status <= 599);
  }

  /**
   * The response as journaled: headers that carry credentials are left out, the body decoded by the
   * {@code Content-Type}'s charset (UTF-8 when it names none, or one this runtime does not know).
   *
   * @throws IOException when the body was over {@link #MAX_RESPONSE_BYTES}: nothing is recorded and
   *     the invocation fails, naming the effect, the URL (secrets hidden) and the limit
   */
  private Response response(Request request, HttpResponse<LimitedBody.Body> r) throws IOException {
    byte[] bytes = r.body().bytes();
    if (bytes == null) throw tooLarge(request, r.statusCode());
    Charset charset;
    try {
      charset = BodyFormats.charset(r.headers().firstValue("Content-Type").orElse(null));
    } catch (IOException unknown) {
      charset = null;
    }
    String body = new String(bytes, charset == null ? StandardCharsets.UTF_8 : charset);
    Map<String, List<String>> headers = new LinkedHashMap<>();
    r.headers()
        .map()
        .forEach(
            (name, values) -> {
              if (!name.startsWith(":") && !SECRET_HEADERS.contains(name.toLowerCase(Locale.ROOT)))
                headers.put(name, values);
            });
    return new Response(r.statusCode(), headers, body);
  }
}
