package io.watukuy.sink.webhook;

import io.watukuy.BatchHandler.BatchResult;
import io.watukuy.ChangeEvent;
import io.watukuy.HandlerUnavailableException;
import io.watukuy.PollerKey;
import io.watukuy.RetryAfterException;
import io.watukuy.TimeSource;
import io.watukuy.sink.CloudEvents;
import io.watukuy.sink.EventFormat;
import io.watukuy.sink.Sink;
import io.watukuy.sink.SinkConfig;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * POSTs a poller's events to an HTTP receiver, signed as Standard Webhooks (standardwebhooks.com)
 * says (docs/sinks.md, "Webhooks"; sink type {@code webhook}).
 *
 * <p><b>Requests.</b> One event per request (the default), or one batch per request ({@link
 * WebhookSettings#batch()}: a JSON array, in sequence order). The body is the event envelope
 * ({@code application/json}; it carries the event id and sequence) or, with {@code format:
 * cloudevents}, the CloudEvents structured form ({@code application/cloudevents+json}, a batch
 * {@code application/cloudevents-batch+json}). Every request carries {@code webhook-id}, {@code
 * webhook-timestamp} (Unix seconds from the injected {@link TimeSource}, fresh per attempt) and
 * {@code webhook-signature} ({@code v1,} Base64 HMAC-SHA256 over {@code id.timestamp.body}).
 *
 * <p><b>What a receiver deduplicates by.</b> A single event's {@code webhook-id} is its delivery
 * key {@code <event id>-<sequence>}: the same on every redelivery of that outbox row, and different
 * for a state that recurs (A → B → A). A batch's is {@code batch-} and the SHA-256 (hex) of its
 * events' delivery keys: it repeats exactly when the same events are sent again together; a batch
 * made up differently after a crash has another id, so a batch receiver deduplicates each element
 * by its own delivery key (the envelope's {@code id} and {@code sequence}, the CloudEvents {@code
 * id}).
 *
 * <p><b>Outcomes.</b> A 2xx (meeting the {@code success} rule, when set) delivers the request's
 * events. Any other status (3xx included: redirects are never followed, so the signature never
 * reaches another origin), a 2xx failing the rule, no answer (the connection included) within the
 * timeout, or a connection broken mid-request fails the request's events with {@link
 * WebhookDeliveryException} — as {@link RetryAfterException} when the answer has a {@code
 * Retry-After} — so they are retried with backoff and parked after the last attempt (G7). A
 * receiver that cannot be reached (connection refused, unknown host) is down: {@link
 * HandlerUnavailableException}, the events stay pending, nothing is counted or parked (G1). When
 * one event fails, the later events of its ordering key in the batch are not sent (they come again
 * after it, G3).
 *
 * <p>Thread-safe: batches of different keys may be handled at once.
 *
 * @since 0.2
 */
public final class WebhookSink implements Sink {
  /** A CloudEvents batch's media type (the CloudEvents HTTP binding, "Batched Content Mode"). */
  public static final String CLOUDEVENTS_BATCH_CONTENT_TYPE = "application/cloudevents-batch+json";

  private final WebhookSettings settings;
  private final TimeSource time;
  private final HttpClient client;
  private final String name;
  private final Map<PollerKey, URI> uris = new ConcurrentHashMap<>();
  private volatile @Nullable String outage;

  /**
   * A sink on the system clock.
   *
   * @param settings what to send where
   */
  public WebhookSink(WebhookSettings settings) {
    this(settings, TimeSource.system());
  }

  /**
   * A sink whose {@code webhook-timestamp} and {@code Retry-After} dates read {@code time}.
   *
   * @param settings what to send where
   * @param time the clock, e.g. the engine's virtual clock in a test
   */
  public WebhookSink(WebhookSettings settings, TimeSource time) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.time = Objects.requireNonNull(time, "time");
    this.name = "webhook " + RedactedUrl.of(settings.url().toString());
    // Never follow a redirect: the signed request (and any Authorization header) would go to
    // wherever the Location points, another origin included.
    // HTTP/1.1: with the default HTTP/2 (an h2c upgrade on http:) the JDK 17 client reports a
    // response that is late as HttpConnectTimeoutException, and a slow receiver would look down.
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(settings.timeout())
            .build();
  }

  /**
   * {@code webhook} and the URL as configured, redacted.
   *
   * @return e.g. {@code webhook https://hooks.example.com/orders?token=***}
   */
  @Override
  public String name() {
    return name;
  }

  /**
   * Down after a request that could not reach the receiver, until the next answer of any kind.
   *
   * @return the health; never blocks
   */
  @Override
  public Health health() {
    String down = outage;
    return down == null ? Health.up() : Health.down(down);
  }

  @Override
  public BatchResult handle(List<ChangeEvent<Object>> events) throws Exception {
    if (events.isEmpty()) return BatchResult.ok();
    URI uri = uri(events.get(0).key());
    return settings.batch() ? sendBatch(uri, events) : sendEach(uri, events);
  }

  /** One request per event, in order; an ordering key stops at its first failure. */
  private BatchResult sendEach(URI uri, List<ChangeEvent<Object>> events) {
    BatchResult result = BatchResult.ok();
    Set<String> failedKeys = new HashSet<>();
    String contentType =
        settings.format() == EventFormat.CLOUDEVENTS
            ? CloudEvents.STRUCTURED_CONTENT_TYPE
            : "application/json";
    for (int i = 0; i < events.size(); i++) {
      ChangeEvent<Object> e = events.get(i);
      if (failedKeys.contains(e.orderingKey())) continue;
      byte[] body = settings.format().json(e).getBytes(StandardCharsets.UTF_8);
      RuntimeException failure = post(uri, e.deliveryKey(), body, contentType);
      if (failure == null) continue;
      if (failure instanceof HandlerUnavailableException down) {
        // Nothing more can be sent: every unsent ordering key stops here, pending and uncounted.
        for (ChangeEvent<Object> rest : events.subList(i, events.size()))
          if (failedKeys.add(rest.orderingKey())) result = result.andFailed(rest, down);
        return result;
      }
      failedKeys.add(e.orderingKey());
      result = result.andFailed(e, failure);
    }
    return result;
  }

  /** One request for the batch: all delivered, or each ordering key's first event failed. */
  private BatchResult sendBatch(URI uri, List<ChangeEvent<Object>> events) {
    StringBuilder json = new StringBuilder("[");
    StringBuilder keys = new StringBuilder();
    for (ChangeEvent<Object> e : events) {
      if (json.length() > 1) json.append(',');
      json.append(settings.format().json(e));
      keys.append(e.deliveryKey()).append('\n');
    }
    json.append(']');
    String contentType =
        settings.format() == EventFormat.CLOUDEVENTS
            ? CLOUDEVENTS_BATCH_CONTENT_TYPE
            : "application/json";
    RuntimeException failure =
        post(
            uri,
            batchId(keys.toString()),
            json.toString().getBytes(StandardCharsets.UTF_8),
            contentType);
    if (failure == null) return BatchResult.ok();
    if (failure instanceof HandlerUnavailableException down) throw down;
    BatchResult result = BatchResult.ok();
    Set<String> failedKeys = new HashSet<>();
    for (ChangeEvent<Object> e : events)
      if (failedKeys.add(e.orderingKey())) result = result.andFailed(e, failure);
    return result;
  }

  /**
   * The {@code webhook-id} of a batch: {@code batch-} and the hex SHA-256 of its delivery keys, one
   * a line. The same events sent together again have the same id; no {@code .} (the signed content
   * is dot-delimited).
   */
  static String batchId(String deliveryKeys) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(deliveryKeys.getBytes(StandardCharsets.UTF_8));
      return "batch-" + HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  /**
   * Adds the headers the engine's listeners gave this batch ({@link Sink#headers()}: the W3C trace
   * context), on every request of it. A header the settings already set, one the sink writes
   * itself, and one the JDK client keeps for itself ({@code host}, {@code connection}, ...) are
   * left out.
   */
  private void traceHeaders(HttpRequest.Builder request) {
    Sink.headers()
        .forEach(
            (name, value) -> {
              if (name.equals("content-type") || name.startsWith("webhook-")) return;
              for (String set : settings.headers().keySet()) if (set.equalsIgnoreCase(name)) return;
              try {
                request.header(name, value);
              } catch (IllegalArgumentException restricted) {
                // A header the client sets itself: the request goes without it.
              }
            });
  }

  /**
   * Sends one signed request.
   *
   * @return null when delivered; {@link HandlerUnavailableException} when the receiver cannot be
   *     reached; otherwise the request's failure
   */
  private @Nullable RuntimeException post(URI uri, String id, byte[] body, String contentType) {
    long timestamp = time.now().getEpochSecond();
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(settings.timeout())
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    settings.headers().forEach(request::header);
    traceHeaders(request);
    request
        .header("content-type", contentType)
        .header("webhook-id", id)
        .header("webhook-timestamp", Long.toString(timestamp))
        .header("webhook-signature", settings.secret().sign(id, timestamp, body));
    String where = "webhook " + RedactedUrl.of(uri.toString());
    HttpResponse<byte[]> response;
    try {
      response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (HttpTimeoutException e) {
      // No answer in time, the connection included: counted, retried, parked after the last
      // attempt, as for a receiver that answers late. The JDK client cannot be trusted to tell a
      // slow connect from a slow answer (under load it reports a late answer as a connect
      // timeout), and a receiver that took the request may have processed it.
      return new WebhookDeliveryException(
          where + " did not answer within " + SinkConfig.formatDuration(settings.timeout()), 0, e);
    } catch (IOException e) {
      // The JDK client reports an unknown host as a ConnectException caused by an
      // UnresolvedAddressException: look for that first.
      if (unresolved(e)) return down(where + " is unreachable: unknown host " + uri.getHost(), e);
      if (e instanceof ConnectException) return down(where + " is unreachable: " + describe(e), e);
      return new WebhookDeliveryException(where + " broke the connection: " + describe(e), 0, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return down(where + ": interrupted while sending (the engine is stopping)", e);
    }
    outage = null;
    int status = response.statusCode();
    if (status >= 200 && status <= 299) {
      SuccessRule rule = settings.success();
      String violation = rule == null ? null : rule.violation(response.body());
      if (violation == null) return null;
      return new WebhookDeliveryException(
          where + " answered " + status + " but " + violation, status, null);
    }
    String why =
        status >= 300 && status <= 399
            ? " (redirects are not followed: set url to the final address)"
            : "";
    WebhookDeliveryException failure =
        new WebhookDeliveryException(where + " answered " + status + why, status, null);
    Optional<Duration> wait =
        response
            .headers()
            .firstValue("retry-after")
            .flatMap(v -> RetryAfterHeader.parse(v, time.now()));
    if (wait.isPresent())
      return new RetryAfterException(
          where + " answered " + status + ", retry after " + SinkConfig.formatDuration(wait.get()),
          wait.get(),
          failure);
    return failure;
  }

  private HandlerUnavailableException down(String message, Throwable cause) {
    outage = message;
    return new HandlerUnavailableException(message, cause);
  }

  private static boolean unresolved(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause())
      if (c instanceof UnresolvedAddressException || c instanceof UnknownHostException) return true;
    return false;
  }

  private static String describe(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause())
      if (c.getMessage() != null) return c.getClass().getSimpleName() + ": " + c.getMessage();
    // The JDK client's refused connection carries no message at all.
    return t instanceof ConnectException ? "connection refused" : t.getClass().getSimpleName();
  }

  /** The URL of a key's events, placeholders URL-encoded. */
  private URI uri(PollerKey key) {
    return uris.computeIfAbsent(key, k -> URI.create(settings.url().render(encoded(k))));
  }

  static PollerKey encoded(PollerKey key) {
    return PollerKey.of(encode(key.poller()), encode(key.partition()));
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
