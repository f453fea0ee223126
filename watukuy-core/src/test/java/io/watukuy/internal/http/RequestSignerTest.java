package io.watukuy.internal.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.HttpStatusException;
import io.watukuy.OutgoingRequest;
import io.watukuy.RequestOptions;
import io.watukuy.RequestSigner;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The request signer hook of the HTTP helper (issue 19, section 1): every request to the signer's
 * origin is signed, redirect hops and next-page links included; a request to another origin gets no
 * credential at all; a 401 gets one new credential and one retry of that same request.
 */
class RequestSignerTest {

  private static final HttpClient CLIENT = HttpClients.newDefault();

  private final TestServer server = TestServer.start();
  private final FakeHttpScope scope = new FakeHttpScope();
  private final DefaultHttp http = new DefaultHttp(CLIENT, scope);

  /** A bearer token numbered by how many times it was renewed, plus a body digest header. */
  private static final class CountingSigner implements RequestSigner {
    final AtomicInteger renewals = new AtomicInteger();
    final List<OutgoingRequest> seen = new CopyOnWriteArrayList<>();

    @Override
    public void sign(OutgoingRequest request) {
      seen.add(request);
      request.setHeader("Authorization", "Bearer token-" + renewals.get());
      request.setHeader(
          "X-Signature",
          request.method()
              + " "
              + request.uri().getRawPath()
              + " body="
              + new String(request.body(), StandardCharsets.UTF_8));
    }

    @Override
    public boolean retryAfterUnauthorized(OutgoingRequest request) {
      renewals.incrementAndGet();
      return true;
    }

    @Override
    public Set<String> secretValues() {
      return Set.of("token-" + renewals.get());
    }
  }

  private final CountingSigner signer = new CountingSigner();

  @AfterEach
  void stopServer() {
    server.close();
  }

  private void signFor(String url) {
    scope.signer = signer;
    scope.signerOrigin = DefaultHttp.origin(URI.create(url));
  }

  @Test
  void everyRequestToTheOriginIsSignedOverMethodPathAndBody() {
    signFor(server.url("/"));
    server.reply(200, "[]");

    http.post(server.url("/search"), Map.of("q", "x"), RequestOptions.DEFAULT);

    assertThat(server.request(0).header("authorization")).isEqualTo("Bearer token-0");
    assertThat(server.request(0).header("x-signature"))
        .isEqualTo("POST /search body={\"q\":\"x\"}");
  }

  @Test
  void aRedirectToAnotherPortOfTheSameHostGetsNoAuthorizationAndNoSignature() {
    try (TestServer other = TestServer.start()) {
      signFor(server.url("/"));
      server.reply(302, "", "Location", other.url("/elsewhere"));
      other.reply(200, "[]");

      http.get(server.url("/orders"));

      assertThat(server.request(0).header("authorization")).isEqualTo("Bearer token-0");
      assertThat(other.requests).hasSize(1);
      assertThat(other.request(0).header("authorization")).isNull();
      assertThat(other.request(0).header("x-signature")).isNull();
    }
  }

  @Test
  void aRedirectWithinTheOriginIsSignedAgainForItsNewPath() {
    signFor(server.url("/"));
    server.reply(301, "", "Location", "/v2/orders").reply(200, "[]");

    http.get(server.url("/orders"));

    assertThat(server.request(1).path()).isEqualTo("/v2/orders");
    assertThat(server.request(1).header("authorization")).isEqualTo("Bearer token-0");
    assertThat(server.request(1).header("x-signature")).isEqualTo("GET /v2/orders body=");
  }

  @Test
  void aNextPageLinkToAnotherOriginIsSentUnsignedAndOneToTheOriginIsSigned() {
    try (TestServer other = TestServer.start()) {
      // The signer serves the configured origin, whatever URL the fetch asks for.
      signFor(server.url("/"));
      other.reply(200, "[]");
      server.reply(200, "[]");

      http.get(other.url("/orders?page=2"));
      http.get(server.url("/orders?page=3"));

      assertThat(other.request(0).header("authorization")).isNull();
      assertThat(other.request(0).header("x-signature")).isNull();
      assertThat(server.request(0).header("authorization")).isEqualTo("Bearer token-0");
    }
  }

  @Test
  void a401GetsOneNewCredentialAndOneRetryOfThatSameRequest() {
    signFor(server.url("/"));
    server.reply(401, "expired").reply(200, "[{\"id\":1}]");

    var result = http.get(server.url("/orders?page=7"));

    assertThat(result.status()).isEqualTo(200);
    assertThat(server.requests).hasSize(2);
    assertThat(server.request(1).path()).isEqualTo("/orders");
    assertThat(server.request(1).rawQuery()).isEqualTo("page=7");
    assertThat(server.request(0).header("authorization")).isEqualTo("Bearer token-0");
    assertThat(server.request(1).header("authorization")).isEqualTo("Bearer token-1");
  }

  @Test
  void aSecond401IsTheAnswerNeverAThirdRequest() {
    signFor(server.url("/"));
    server.reply(401, "no").reply(401, "still no").reply(200, "[]");

    assertThatThrownBy(() -> http.get(server.url("/orders")))
        .isInstanceOf(HttpStatusException.class)
        .hasMessageContaining("401");
    assertThat(server.requests).hasSize(2);
    assertThat(signer.renewals).hasValue(1);
  }

  @Test
  void theSignersCurrentTokenIsHiddenInAnErrorBodyThatEchoesIt() {
    signFor(server.url("/"));
    server.reply(403, "{\"error\":\"token token-0 lacks scope orders:read\"}");

    assertThatThrownBy(() -> http.get(server.url("/orders")))
        .isInstanceOf(HttpStatusException.class)
        .satisfies(
            e -> {
              String body = String.valueOf(((HttpStatusException) e).bodySnippet());
              assertThat(body).doesNotContain("token-0").contains("[redacted]");
            });
  }

  @Test
  void aQueryParameterAddedBySigningGoesToTheOriginOnly() {
    try (TestServer other = TestServer.start()) {
      scope.signer = request -> request.addQueryParameter("api_key", "k 1");
      scope.signerOrigin = DefaultHttp.origin(URI.create(server.url("/")));
      server.reply(302, "", "Location", other.url("/x?a=1"));
      other.reply(200, "[]");

      http.get(server.url("/orders?a=1"));

      assertThat(server.request(0).rawQuery()).isEqualTo("a=1&api_key=k%201");
      assertThat(other.request(0).rawQuery()).isEqualTo("a=1");
    }
  }
}
