package io.watukuy.effects.internal;

import io.watukuy.SealingKeys;
import io.watukuy.TimeSource;
import io.watukuy.effects.EffectHttp;
import io.watukuy.internal.http.Redactor;
import io.watukuy.spi.EffectStore;
import java.net.http.HttpClient;
import java.security.SecureRandom;
import java.util.Collection;
import java.util.List;
import java.util.Random;
import org.jspecify.annotations.Nullable;

/**
 * What every invocation of an engine shares beyond the store: the sealing of documents, the
 * redaction of the engine's secrets in what the journal stores, and the one HTTP client (made on
 * first use). Thread-safe.
 */
public final class EffectServices implements AutoCloseable {
  private final SubjectSeals seals;
  private final TimeSource time;
  private final Redactor redactor;
  private @Nullable HttpClient http;

  /**
   * @param secretKey the top-level key wrapping subjects' data keys, or null when none is set
   * @param random data keys, key ids and nonces; a {@code SecureRandom} unless a test seeds one
   * @param secrets the engine's secrets ({@code Effects.Builder#secrets}): never stored in a
   *     journal row's label or unsealed result
   */
  public EffectServices(
      EffectStore store,
      TimeSource time,
      @Nullable SealingKeys secretKey,
      Random random,
      Collection<String> secrets) {
    this.seals = new SubjectSeals(store, time, secretKey, random);
    this.time = time;
    this.redactor = Redactor.of(secrets);
  }

  /** Services without a secretKey or secrets: sealing fails with a message saying so. */
  static EffectServices defaults(EffectStore store, TimeSource time) {
    return new EffectServices(store, time, null, new SecureRandom(), List.of());
  }

  /**
   * Text as stored (a journal row's label, a quarantine reason): the engine's secrets hidden as
   * {@code [redacted]} (docs/effects.md, "The journal").
   */
  public String storedText(String text) {
    return redactor.message(text);
  }

  /**
   * An unsealed result as stored: still JSON, the engine's secrets hidden as {@code [redacted]} in
   * every form, escaped once or twice included ({@link Redactor#json}).
   */
  String storedResult(String json) {
    return redactor.json(json);
  }

  /** A URL for a message: credential-like query parameters and the engine's secrets hidden. */
  String url(String url) {
    return redactor.url(url);
  }

  public SubjectSeals seals() {
    return seals;
  }

  TimeSource time() {
    return time;
  }

  synchronized HttpClient http() {
    if (http == null)
      http =
          HttpClient.newBuilder()
              .connectTimeout(EffectHttp.CONNECT_TIMEOUT)
              .followRedirects(HttpClient.Redirect.NEVER)
              .build();
    return http;
  }

  /**
   * Lets the HTTP client go: the release this builds for has no {@code HttpClient.close()}, and the
   * client's own thread ends once nothing refers to it.
   */
  @Override
  public synchronized void close() {
    http = null;
  }
}
