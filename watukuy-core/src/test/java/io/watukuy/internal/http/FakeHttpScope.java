package io.watukuy.internal.http;

import io.watukuy.HttpResult;
import io.watukuy.RequestOptions;
import io.watukuy.RequestSigner;
import io.watukuy.spi.HttpValidator;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** An {@link HttpScope} with validators in a map, a fixed clock and recorded observations. */
final class FakeHttpScope implements HttpScope {
  static final Instant NOW = Instant.parse("2026-11-30T00:00:00Z");

  Instant now = NOW;
  boolean trustNotModified;
  boolean keepsValidators = true;
  Duration requestTimeout = RequestOptions.DEFAULT_REQUEST_TIMEOUT;
  long maxBodySize = RequestOptions.DEFAULT_MAX_BODY_SIZE;
  Set<String> secretValues = Set.of();
  final Map<String, HttpValidator> validators = new HashMap<>();
  final List<String> storeCalls = new ArrayList<>();
  final List<HttpResult> observed = new ArrayList<>();

  @Override
  public String poller() {
    return "orders";
  }

  @Override
  public String partition() {
    return "";
  }

  @Override
  public int page() {
    return 1;
  }

  @Override
  public boolean trustNotModified() {
    return trustNotModified;
  }

  @Override
  public boolean keepsValidators() {
    return keepsValidators;
  }

  @Override
  public @Nullable HttpValidator loadValidator(String urlHash) {
    return validators.get(urlHash);
  }

  @Override
  public void storeValidator(String urlHash, HttpValidator v) {
    storeCalls.add(urlHash);
    validators.put(urlHash, v);
  }

  @Override
  public Instant now() {
    return now;
  }

  @Override
  public Duration requestTimeout() {
    return requestTimeout;
  }

  @Override
  public long maxBodySize() {
    return maxBodySize;
  }

  @Nullable RequestSigner signer;
  @Nullable String signerOrigin;

  @Override
  public Set<String> secretValues() {
    if (signer == null) return secretValues;
    Set<String> all = new HashSet<>(secretValues);
    all.addAll(signer.secretValues());
    return all;
  }

  @Override
  public @Nullable RequestSigner signer() {
    return signer;
  }

  @Override
  public @Nullable String signerOrigin() {
    return signerOrigin;
  }

  @Override
  public void observe(HttpResult result) {
    observed.add(result);
  }
}
