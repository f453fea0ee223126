package io.watukuy.internal.http;

import io.watukuy.RequestOptions;
import java.net.http.HttpClient;
import java.time.Duration;

/** Factories for the JDK {@link HttpClient} behind {@link DefaultHttp}. */
public final class HttpClients {

  private HttpClients() {}

  /**
   * A client with {@link RequestOptions#DEFAULT_CONNECT_TIMEOUT} that follows no redirect: {@link
   * DefaultHttp} follows them itself, so that the caller's headers reach no other origin.
   * Thread-safe; share one per engine, since each client owns a connection pool and a selector
   * thread.
   */
  public static HttpClient newDefault() {
    return newClient(RequestOptions.DEFAULT_CONNECT_TIMEOUT);
  }

  /** Like {@link #newDefault()} with another connect timeout. */
  public static HttpClient newClient(Duration connectTimeout) {
    return HttpClient.newBuilder()
        .connectTimeout(connectTimeout)
        .followRedirects(HttpClient.Redirect.NEVER)
        .build();
  }
}
