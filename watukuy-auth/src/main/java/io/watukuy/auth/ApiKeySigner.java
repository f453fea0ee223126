package io.watukuy.auth;

import io.watukuy.OutgoingRequest;
import io.watukuy.RequestSigner;
import java.util.Set;

/**
 * Sends an API key in a header ({@code X-Api-Key: KEY}) or as a query parameter ({@code
 * ?api_key=KEY}). The key is hidden wherever it would be printed, whatever the parameter is called:
 * a URL in a message shows {@code NAME=[redacted]}. Immutable and thread-safe.
 */
public final class ApiKeySigner implements RequestSigner {

  /** Where the key goes. */
  public enum In {
    /** A request header. */
    HEADER,
    /** A query parameter appended to every request's URL. */
    QUERY
  }

  private final In in;
  private final String name;
  private final String key;

  private ApiKeySigner(In in, String name, String key) {
    if (name.isBlank()) throw new IllegalArgumentException("the " + in + " name is empty");
    this.in = in;
    this.name = name;
    this.key =
        in == In.HEADER ? Credentials.headerValue("key", key) : Credentials.nonEmpty("key", key);
  }

  /**
   * The key in a header.
   *
   * @throws IllegalArgumentException if the name or key is empty, or the key has a line break
   */
  public static ApiKeySigner header(String name, String key) {
    return new ApiKeySigner(In.HEADER, name, key);
  }

  /**
   * The key as a query parameter, URL-encoded.
   *
   * @throws IllegalArgumentException if the name or key is empty
   */
  public static ApiKeySigner query(String name, String key) {
    return new ApiKeySigner(In.QUERY, name, key);
  }

  /** Where the key goes. */
  public In in() {
    return in;
  }

  /** The header or parameter name. */
  public String name() {
    return name;
  }

  @Override
  public void sign(OutgoingRequest request) {
    if (in == In.HEADER) request.setHeader(name, key);
    else request.addQueryParameter(name, key);
  }

  @Override
  public Set<String> secretValues() {
    return Set.of(key);
  }
}
