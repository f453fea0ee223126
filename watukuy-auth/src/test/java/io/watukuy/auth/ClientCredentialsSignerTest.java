package io.watukuy.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.watukuy.OutgoingRequest;
import io.watukuy.testing.VirtualClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ClientCredentialsSigner} against a token endpoint on 127.0.0.1, on a virtual clock: what
 * it sends (RFC 6749 section 4.4.2), how long it keeps a token, what a 401 does, and how it backs
 * off from an endpoint that fails. The end-to-end run against oauth2-mock-server is in
 * examples/oauth2-client-credentials.
 */
class ClientCredentialsSignerTest {
  private static final String SECRET = "cl1ent-s3cret";

  private HttpServer server;
  private final List<String> bodies = new CopyOnWriteArrayList<>();
  private final List<String> authorizations = new CopyOnWriteArrayList<>();
  private final AtomicInteger issued = new AtomicInteger();
  private volatile int status = 200;
  private volatile String refusal = "{\"error\":\"invalid_client\"}";
  private final VirtualClock clock = new VirtualClock();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/token",
        ex -> {
          bodies.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          authorizations.add(String.valueOf(ex.getRequestHeaders().getFirst("Authorization")));
          byte[] body =
              (status == 200
                      ? "{\"access_token\":\"at-"
                          + issued.incrementAndGet()
                          + "\",\"token_type\":\"Bearer\",\"expires_in\":100}"
                      : refusal)
                  .getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().set("Content-Type", "application/json");
          ex.sendResponseHeaders(status, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private String tokenUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/token";
  }

  private ClientCredentialsSigner.Builder builder() {
    return ClientCredentialsSigner.builder(tokenUrl(), "watukuy", SECRET).time(clock);
  }

  private static OutgoingRequest request() {
    return new OutgoingRequest(
        "GET", URI.create("https://api.example.com/orders"), Map.of(), new byte[0]);
  }

  private static String signed(ClientCredentialsSigner signer) {
    OutgoingRequest r = request();
    signer.sign(r);
    return r.addedHeaders().get("Authorization");
  }

  @Test
  void basicClientAuthSendsTheGrantScopesAndAudienceInTheBodyAndTheCredentialsInTheHeader() {
    ClientCredentialsSigner signer =
        builder().scopes(List.of("orders:read", "customers:read")).audience("https://erp").build();

    assertThat(signed(signer)).isEqualTo("Bearer at-1");

    Map<String, String> form = form(bodies.get(0));
    assertThat(form)
        .containsEntry("grant_type", "client_credentials")
        .containsEntry("scope", "orders:read customers:read")
        .containsEntry("audience", "https://erp")
        .doesNotContainKey("client_secret");
    // RFC 6749 section 2.3.1: id and secret form-encoded, then Basic
    assertThat(authorizations.get(0)).isEqualTo("Basic d2F0dWt1eTpjbDFlbnQtczNjcmV0");
  }

  @Test
  void postClientAuthSendsTheCredentialsInTheBodyAndNoAuthorization() {
    ClientCredentialsSigner signer =
        builder().clientAuth(ClientCredentialsSigner.ClientAuth.POST).build();

    signed(signer);

    assertThat(form(bodies.get(0)))
        .containsEntry("client_id", "watukuy")
        .containsEntry("client_secret", SECRET)
        .doesNotContainKey("scope");
    assertThat(authorizations.get(0)).isEqualTo("null");
  }

  @Test
  void theTokenIsKeptUntilEarlyRefreshBeforeExpiresInThenReplaced() {
    ClientCredentialsSigner signer = builder().earlyRefresh(Duration.ofSeconds(30)).build();

    assertThat(signed(signer)).isEqualTo("Bearer at-1");
    clock.advance(Duration.ofSeconds(69)); // expires_in 100, replaced 30 s early: at 70 s
    assertThat(signed(signer)).isEqualTo("Bearer at-1");
    clock.advance(Duration.ofSeconds(1));
    assertThat(signed(signer)).isEqualTo("Bearer at-2");
    assertThat(signer.tokenRequests()).isEqualTo(2);
    assertThat(signer.secretValues()).contains("at-2", SECRET);
  }

  @Test
  void a401DropsTheTokenItWasSignedWithAndTheRetryGetsANewOne() {
    ClientCredentialsSigner signer = builder().build();
    OutgoingRequest refused = request();
    signer.sign(refused);

    assertThat(signer.retryAfterUnauthorized(refused)).isTrue();
    assertThat(signed(signer)).isEqualTo("Bearer at-2");
    // A late 401 to the old token leaves the new one alone.
    assertThat(signer.retryAfterUnauthorized(refused)).isTrue();
    assertThat(signed(signer)).isEqualTo("Bearer at-2");
  }

  @Test
  void aRefusingEndpointIsNamedAndAskedAgainOnlyAfterADoublingBackoff() {
    status = 401;
    refusal = "{\"error\":\"invalid_client\",\"error_description\":\"bad secret " + SECRET + "\"}";
    ClientCredentialsSigner signer = builder().backoff(Duration.ofSeconds(1)).build();

    assertThatThrownBy(() -> signed(signer))
        .hasMessage(
            "token endpoint "
                + tokenUrl()
                + " refused the client credentials of watukuy: HTTP 401 invalid_client (bad secret"
                + " [redacted])");
    assertThatThrownBy(() -> signed(signer)).hasMessageContaining("invalid_client");
    assertThat(bodies).hasSize(1); // within the backoff: the same failure, no request

    clock.advance(Duration.ofSeconds(1));
    assertThatThrownBy(() -> signed(signer)).hasMessageContaining("invalid_client");
    assertThat(bodies).hasSize(2);
    clock.advance(Duration.ofSeconds(1)); // the backoff doubled to 2 s
    assertThatThrownBy(() -> signed(signer)).hasMessageContaining("invalid_client");
    assertThat(bodies).hasSize(2);

    status = 200;
    clock.advance(Duration.ofSeconds(1));
    assertThat(signed(signer)).isEqualTo("Bearer at-1");
  }

  @Test
  void aWrongTokenUrlIsNamedAsTheUrlNotAsRefusedCredentials() {
    // An error body on a 404: RFC 6749 section 5.2 refuses a client with 400 or 401 only.
    status = 404;
    refusal = "{\"error\":\"not_found\",\"error_description\":\"no such path\"}";
    ClientCredentialsSigner signer = builder().build();

    assertThatThrownBy(() -> signed(signer))
        .hasMessage(
            "token endpoint "
                + tokenUrl()
                + " answered HTTP 404 without a token response; check tokenUrl")
        .message()
        .doesNotContain("refused the client credentials");
  }

  @Test
  void anEndpointThatIsDownIsNamedInTheMessage() {
    server.stop(0);
    ClientCredentialsSigner signer = builder().timeout(Duration.ofSeconds(2)).build();

    assertThatThrownBy(() -> signed(signer))
        .hasMessage("token endpoint " + tokenUrl() + " failed: connection refused");
  }

  @Test
  void a5xxWithoutATokenResponseIsNamedWithItsStatus() {
    status = 503;
    refusal = "<html>maintenance</html>";
    ClientCredentialsSigner signer = builder().build();

    assertThatThrownBy(() -> signed(signer))
        .hasMessageStartingWith("token endpoint " + tokenUrl() + " answered HTTP 503");
  }

  private static Map<String, String> form(String body) {
    return JwtTokenServer.form(body);
  }
}
