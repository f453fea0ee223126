package io.watukuy.internal.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.HttpResult;
import io.watukuy.HttpStatusException;
import io.watukuy.RequestOptions;
import io.watukuy.spi.HttpValidator;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DefaultHttpTest {

  private static final HttpClient CLIENT = HttpClients.newDefault();
  private static final String LAST_MODIFIED = "Sun, 06 Nov 1994 08:49:37 GMT";

  record Order(String id, int total) {}

  private final TestServer server = TestServer.start();
  private final FakeHttpScope scope = new FakeHttpScope();
  private final DefaultHttp http = new DefaultHttp(CLIENT, scope);

  @AfterEach
  void stopServer() {
    server.close();
  }

  // ---- requests

  @Test
  void queryMapDropsNullValuesEncodesTheRestAndAppendsToTheUrlQuery() {
    server.reply(200, "[]");
    Map<String, Object> query = new LinkedHashMap<>();
    query.put("updated_since", null);
    query.put("limit", 500);
    query.put("after_id", null);
    query.put("q", "a b&c=d/é+");
    query.put("since", Instant.parse("2026-01-01T00:00:00Z"));

    http.get(
        server.url("/orders?sort=updatedAt,id"), RequestOptions.builder().query(query).build());

    assertThat(server.request(0).rawQuery())
        .isEqualTo(
            "sort=updatedAt,id&limit=500&q=a%20b%26c%3Dd%2F%C3%A9%2B"
                + "&since=2026-01-01T00%3A00%3A00Z");
  }

  @Test
  void nullQueryValueRemovesAValueSetEarlier() {
    RequestOptions options =
        RequestOptions.builder()
            .query("cursor", "abc")
            .query("limit", 10)
            .query("cursor", null)
            .build();

    assertThat(options.query()).containsExactly(Map.entry("limit", "10"));
    assertThat(DefaultHttp.withQuery("https://x.test/a?#frag", options.query()))
        .isEqualTo("https://x.test/a?limit=10#frag");
  }

  @Test
  void sendsJsonAcceptAndTheWatukuyUserAgentUnlessTheOptionsReplaceThem() {
    server.reply(200, "{}").reply(200, "{}");

    http.get(server.url("/a"));
    http.get(
        server.url("/b"),
        RequestOptions.builder().header("accept", "application/vnd.api+json").build());

    assertThat(server.request(0).header("accept")).isEqualTo("application/json");
    assertThat(server.request(0).header("user-agent")).isEqualTo("watukuy/0.1");
    assertThat(server.request(1).headers().get("accept"))
        .containsExactly("application/vnd.api+json");
  }

  @Test
  void credentialsInTheUrlGoAsBasicAuthorizationUnlessTheOptionsSetOne() {
    server.reply(200, "{}").reply(200, "{}");
    // RFC 7617: Basic credentials are Base64 of user-id ":" password; "bob:s3cret pass" is the
    // decoded form of the URL's user info (percent-decoded, RFC 3986 section 3.2.1).
    String withUser = server.url("/a").replace("http://", "http://bob:s3cret%20pass@");

    http.get(withUser);
    http.get(withUser, RequestOptions.builder().header("Authorization", "Bearer t0ken").build());

    assertThat(server.request(0).header("authorization"))
        .isEqualTo("Basic Ym9iOnMzY3JldCBwYXNz"); // base64("bob:s3cret pass")
    assertThat(server.request(0).path()).isEqualTo("/a");
    assertThat(server.request(1).headers().get("authorization")).containsExactly("Bearer t0ken");
  }

  @Test
  void postSerializesTheBodyWithJacksonAsApplicationJson() {
    server.reply(201, "{\"id\":\"o-1\",\"total\":3}");

    HttpResult res = http.post(server.url("/orders"), new Order("o-1", 3), RequestOptions.DEFAULT);

    assertThat(res.status()).isEqualTo(201);
    assertThat(server.request(0).method()).isEqualTo("POST");
    assertThat(server.request(0).header("content-type")).isEqualTo("application/json");
    assertThat(server.request(0).body()).isEqualTo("{\"id\":\"o-1\",\"total\":3}");
  }

  @Test
  void postSendsAStringBodyAsIsWithTheOptionsContentType() {
    server.reply(200, "{}");

    http.post(
        server.url("/graphql"),
        "query { a }",
        RequestOptions.builder().header("Content-Type", "application/graphql").build());

    assertThat(server.request(0).header("content-type")).isEqualTo("application/graphql");
    assertThat(server.request(0).body()).isEqualTo("query { a }");
  }

  @Test
  void putSendsItsBodyLikePostWithThePutMethod() {
    server.reply(200, "{\"results\":[]}");

    HttpResult res =
        http.put(
            server.url("/exports"),
            Map.of("page", 2),
            RequestOptions.builder().query("v", 1).build());

    assertThat(res.method()).isEqualTo("PUT");
    assertThat(server.request(0).method()).isEqualTo("PUT");
    assertThat(server.request(0).rawQuery()).isEqualTo("v=1");
    assertThat(server.request(0).header("content-type")).isEqualTo("application/json");
    assertThat(server.request(0).body()).isEqualTo("{\"page\":2}");
  }

  // ---- responses

  @Test
  void decodesTheBodyIntoARecordAGenericTypeAndATree() {
    server.reply(
        200, "[{\"id\":\"o-1\",\"total\":3,\"extra\":true}]", "Content-Type", "application/json");

    HttpResult res = http.get(server.url("/orders"));

    assertThat(res.json(new TypeReference<List<Order>>() {})).containsExactly(new Order("o-1", 3));
    JsonNode tree = res.json();
    assertThat(tree.get(0).get("id").asText()).isEqualTo("o-1");
    assertThat(res.body()).startsWith("[{\"id\"");
    assertThat(res.header("CONTENT-TYPE")).isEqualTo("application/json");
    assertThat(res.headers()).containsKey("content-type");
  }

  @Test
  void decodesAnObjectBodyIntoARecord() {
    server.reply(200, "{\"id\":\"o-2\",\"total\":7}");

    assertThat(http.get(server.url("/orders/o-2")).json(Order.class))
        .isEqualTo(new Order("o-2", 7));
  }

  @Test
  void aTreeWithADuplicateKeyAtAnyDepthIsRefusedNamingTheKeyAndItsPointer() {
    // Each body: where its duplicate is, then the pointer the message must name.
    String[][] bodies = {
      {"{\"id\":1,\"id\":7}", "Duplicate field 'id'", "at /id"},
      {"{\"items\":[{\"id\":1,\"n\":2,\"id\":7}]}", "Duplicate field 'id'", "at /items/0/id"},
      {"[{\"a\":{\"b\":[1],\"b\":[2]}}]", "Duplicate field 'b'", "at /0/a/b"},
      {"{\"u\":{\"x\":1},\"v\":2,\"u\":{}}", "Duplicate field 'u'", "at /u"},
    };
    for (String[] body : bodies) {
      server.reply(200, body[0], "Content-Type", "application/json");
      HttpResult res = http.get(server.url("/dup"));
      assertThatThrownBy(res::json)
          .as(body[0])
          .isInstanceOf(UncheckedIOException.class)
          .hasMessageContaining("not valid JSON for a JSON tree")
          .hasMessageContaining(body[1] + " " + body[2] + " (line 1, column ")
          .hasMessageNotContaining("DeserializationFeature");
    }
  }

  @Test
  void aTreeReadsAsTheStrictMapperReadsItAndTrailingTokensAreRefused() throws Exception {
    String body =
        "{\"id\":1,\"user\":{\"id\":2,\"login\":\"x\"},\"labels\":[{\"id\":3},{\"id\":4}],"
            + "\"n\":1.5e3,\"big\":123456789012345678901234567890,\"t\":null}";
    server.reply(200, body, "Content-Type", "application/json");
    assertThat(http.get(server.url("/ok")).json())
        .isEqualTo(io.watukuy.internal.Json.VENDOR.readTree(body));

    // The parser keeps no set of names per object: the tree finds a repeated key itself.
    try (com.fasterxml.jackson.core.JsonParser parser =
        io.watukuy.internal.Json.VENDOR_TREE.createParser(body)) {
      assertThat(
              parser.isEnabled(
                  com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION
                      .mappedFeature()))
          .isFalse();
    }

    server.reply(200, "{\"id\":1} {\"id\":2}", "Content-Type", "application/json");
    HttpResult trailing = http.get(server.url("/trailing"));
    assertThatThrownBy(trailing::json).hasMessageContaining("Trailing token");
  }

  @Test
  void bodyThatIsNotJsonThrowsNamingMethodRedactedUrlAndJacksonProblem() {
    server.reply(200, "<html>oops</html>");
    HttpResult res = http.get(server.url("/orders?token=t0p&page=2"));

    assertThatThrownBy(() -> res.json(Order.class))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageStartingWith("GET " + server.url("/orders?token=[redacted]&page=2"))
        .hasMessageContaining("not valid JSON for Order")
        .hasMessageContaining("Unexpected character ('<'")
        .hasMessageNotContaining("t0p");
  }

  @Test
  void errorStatusThrowsWithStatusRedactedUrlHeadersAndBodySnippet() {
    scope.secretValues = Set.of("tok-123");
    DefaultHttp http = new DefaultHttp(CLIENT, scope); // the redactor is fixed at construction
    server.reply(
        401,
        "{\"error\":\"bad token tok-123\"}",
        "Authorization",
        "Bearer tok-123",
        "Set-Cookie",
        "sid=abc",
        "X-Echo",
        "key tok-123",
        "X-Request-Id",
        "r-1");

    HttpStatusException e =
        catchThrowableOfType(
            HttpStatusException.class,
            () ->
                http.get(
                    server.url("/orders?api_key=s3cret&page=2"),
                    RequestOptions.builder().header("Authorization", "Bearer tok-123").build()));

    assertThat(e.status()).isEqualTo(401);
    assertThat(e.method()).isEqualTo("GET");
    assertThat(e.url()).isEqualTo(server.url("/orders?api_key=[redacted]&page=2"));
    assertThat(e.getMessage())
        .isEqualTo("GET " + server.url("/orders?api_key=[redacted]&page=2") + " returned HTTP 401");
    assertThat(e.headers().get("authorization")).containsExactly("[redacted]");
    assertThat(e.headers().get("set-cookie")).containsExactly("[redacted]");
    assertThat(e.headers().get("x-echo")).containsExactly("key [redacted]");
    assertThat(e.header("X-Request-Id")).isEqualTo("r-1");
    assertThat(e.headers().keySet()).allMatch(name -> name.equals(name.toLowerCase()));
    assertThat(e.bodySnippet()).isEqualTo("{\"error\":\"bad token [redacted]\"}");
    assertThat(server.request(0).header("authorization")).isEqualTo("Bearer tok-123");
  }

  @Test
  void throttleIsObservedBeforeTheExceptionIsThrown() {
    server.reply(429, "slow down", "Retry-After", "120", "RateLimit", "\"default\";r=0;t=50");

    HttpStatusException e =
        catchThrowableOfType(HttpStatusException.class, () -> http.get(server.url("/orders")));

    assertThat(e.isThrottle()).isTrue();
    assertThat(scope.observed).hasSize(1);
    assertThat(scope.observed.get(0).retryAfter()).contains(FakeHttpScope.NOW.plusSeconds(120));
    assertThat(scope.observed.get(0).rateLimit().orElseThrow().remaining()).isZero();
  }

  @Test
  void bodySnippetIsCutAt2KiBWithoutSplittingACharacter() {
    server.reply(500, "é".repeat(3000));

    HttpStatusException e =
        catchThrowableOfType(HttpStatusException.class, () -> http.get(server.url("/big")));

    assertThat(e.bodySnippet()).isEqualTo("é".repeat(1024));
  }

  @Test
  void aBodySnippetThatIsNotTextIsNamedNotPrinted() {
    server.reply(503, "\u0000\u0001\u0002oops", "Content-Type", "text/plain");
    server.reply(503, "whatever", "Content-Encoding", "gzip");

    HttpStatusException binary =
        catchThrowableOfType(HttpStatusException.class, () -> http.get(server.url("/a")));
    HttpStatusException gzip =
        catchThrowableOfType(HttpStatusException.class, () -> http.get(server.url("/b")));

    assertThat(binary.bodySnippet()).isEqualTo("binary body, 7 bytes");
    assertThat(gzip.bodySnippet()).isEqualTo("binary body (Content-Encoding gzip), 8 bytes");
  }

  @Test
  void aBodyLongerThanMaxBodySizeIsRefusedNamingBothSizes() {
    scope.maxBodySize = 1024;
    server.reply(200, "x".repeat(2000));

    assertThatThrownBy(() -> http.get(server.url("/big")))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessage(
            "GET "
                + server.url("/big")
                + " failed: the response announces a body of 2000 bytes (Content-Length), more"
                + " than request.maxBodySize 1024 bytes; refused before reading it");
  }

  // ---- validators

  @Test
  void etagAndLastModifiedOfA200AreStoredAndEchoedByteForByte() {
    String url = server.url("/orders?page=1");
    scope.trustNotModified = true;
    server.reply(200, "[]", "ETag", "W/\"v1\"", "Last-Modified", LAST_MODIFIED).reply(200, "[]");

    http.get(url);
    http.get(url);

    String hash = DefaultHttp.sha256Hex(url);
    assertThat(scope.validators)
        .containsExactly(
            Map.entry(hash, new HttpValidator("W/\"v1\"", LAST_MODIFIED, FakeHttpScope.NOW)));
    assertThat(server.request(0).header("if-none-match")).isNull();
    assertThat(server.request(1).header("if-none-match")).isEqualTo("W/\"v1\"");
    assertThat(server.request(1).header("if-modified-since")).isEqualTo(LAST_MODIFIED);
  }

  @Test
  void validatorKeyIsTheSha256OfTheFullUrlAfterNullsAreDropped() {
    assertThat(DefaultHttp.sha256Hex("abc"))
        .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    server.reply(200, "[]", "ETag", "\"e\"");

    http.get(server.url("/o"), RequestOptions.builder().query("a", 1).query("b", null).build());

    assertThat(scope.validators).containsOnlyKeys(DefaultHttp.sha256Hex(server.url("/o?a=1")));
  }

  @Test
  void trusted304ThrowsNotModifiedAfterOneRequest() {
    String url = server.url("/orders");
    scope.validators.put(DefaultHttp.sha256Hex(url), validator("\"v1\"", null));
    scope.trustNotModified = true;
    server.reply(304, "");

    assertThatThrownBy(() -> http.get(url))
        .isInstanceOf(NotModified.class)
        .hasMessage("GET " + url + " returned HTTP 304 Not Modified");
    assertThat(server.requests).hasSize(1);
    assertThat(server.request(0).header("if-none-match")).isEqualTo("\"v1\"");
    assertThat(scope.observed).hasSize(1);
  }

  @Test
  void whereA304CouldNotBeTrustedNoValidatorIsSentButPage1StoresWhatA200Carries() {
    String url = server.url("/orders?page=1");
    scope.validators.put(DefaultHttp.sha256Hex(url), validator("\"v1\"", LAST_MODIFIED));
    server.reply(200, "[{\"id\":\"o-9\",\"total\":1}]", "ETag", "\"v2\"");

    HttpResult res = http.get(url);

    assertThat(res.json(new TypeReference<List<Order>>() {})).containsExactly(new Order("o-9", 1));
    assertThat(server.requests).hasSize(1);
    assertThat(server.request(0).header("if-none-match")).isNull();
    assertThat(server.request(0).header("if-modified-since")).isNull();
    assertThat(scope.validators.get(DefaultHttp.sha256Hex(url)).etag()).isEqualTo("\"v2\"");
  }

  @Test
  void beyondPage1OfTheLiveLaneNoValidatorIsStored() {
    scope.keepsValidators = false;
    server.reply(200, "[]", "ETag", "\"v2\"");

    http.get(server.url("/orders?page=2"));

    assertThat(server.request(0).header("if-none-match")).isNull();
    assertThat(scope.storeCalls).isEmpty();
    assertThat(scope.validators).isEmpty();
  }

  @Test
  void a304ToAnUnconditionalRequestIsAServerFault() {
    server.reply(304, "");

    assertThatThrownBy(() -> http.get(server.url("/orders?page=2")))
        .isInstanceOf(HttpStatusException.class)
        .hasMessageContaining("304");
  }

  @Test
  void a304WithoutAnEtagKeepsTheStoredValidator() {
    String url = server.url("/orders");
    HttpValidator stored = validator("W/\"v1\"", LAST_MODIFIED);
    scope.validators.put(DefaultHttp.sha256Hex(url), stored);
    scope.trustNotModified = true;
    server.reply(304, "");

    assertThatThrownBy(() -> http.get(url)).isInstanceOf(NotModified.class);
    assertThat(scope.validators.get(DefaultHttp.sha256Hex(url))).isEqualTo(stored);
    assertThat(scope.storeCalls).isEmpty();
  }

  @Test
  void a304CarryingANewEtagUpdatesTheStoredValidatorAndKeepsItsLastModified() {
    String url = server.url("/orders");
    scope.validators.put(DefaultHttp.sha256Hex(url), validator("\"v1\"", LAST_MODIFIED));
    scope.trustNotModified = true;
    server.reply(304, "", "ETag", "\"v1b\"");

    assertThatThrownBy(() -> http.get(url)).isInstanceOf(NotModified.class);
    assertThat(scope.validators.get(DefaultHttp.sha256Hex(url)))
        .isEqualTo(new HttpValidator("\"v1b\"", LAST_MODIFIED, FakeHttpScope.NOW));
  }

  @Test
  void validatorsOffSendsNoConditionalHeadersAndStoresNothing() {
    String url = server.url("/orders?since=1700000000");
    scope.validators.put(DefaultHttp.sha256Hex(url), validator("\"v1\"", LAST_MODIFIED));
    server.reply(200, "[]", "ETag", "\"v2\"");

    http.get(url, RequestOptions.builder().validators(false).build());

    assertThat(server.request(0).header("if-none-match")).isNull();
    assertThat(server.request(0).header("if-modified-since")).isNull();
    assertThat(scope.storeCalls).isEmpty();
  }

  @Test
  void conditionalHeadersSetByTheCallerAreSentAsIsAndTheir304Returned() {
    String url = server.url("/orders");
    scope.validators.put(DefaultHttp.sha256Hex(url), validator("\"stored\"", null));
    scope.trustNotModified = true;
    server.reply(304, "");

    HttpResult res =
        http.get(url, RequestOptions.builder().header("If-None-Match", "\"mine\"").build());

    assertThat(res.status()).isEqualTo(304);
    assertThat(server.request(0).headers().get("if-none-match")).containsExactly("\"mine\"");
    assertThat(scope.storeCalls).isEmpty();
  }

  // ---- failures without a response

  @Test
  void requestTimeoutOfTheOptionsIsHonoured() {
    server.replyAfter(Duration.ofMillis(700), 200, "[]");

    assertThatThrownBy(
            () ->
                http.get(
                    server.url("/slow?api_key=s3cret"),
                    RequestOptions.builder().timeout(Duration.ofMillis(200)).build()))
        .isInstanceOf(UncheckedIOException.class)
        .hasCauseInstanceOf(HttpTimeoutException.class)
        .hasMessage(
            "GET "
                + server.url("/slow?api_key=[redacted]")
                + " timed out after 200 ms (request timeout)");
  }

  @Test
  void requestTimeoutCoversReadingTheBody() {
    server.replyWithSlowBody(Duration.ofMillis(700), 200, "[]");

    assertThatThrownBy(
            () ->
                http.get(
                    server.url("/trickle"),
                    RequestOptions.builder().timeout(Duration.ofMillis(200)).build()))
        .isInstanceOf(UncheckedIOException.class)
        .hasCauseInstanceOf(HttpTimeoutException.class)
        .hasMessageEndingWith("timed out after 200 ms (request timeout)");
  }

  @Test
  void requestTimeoutOfThePollerAppliesWhenTheOptionsSetNone() {
    scope.requestTimeout = Duration.ofMillis(200);
    server.replyAfter(Duration.ofMillis(700), 200, "[]");

    assertThatThrownBy(() -> http.get(server.url("/slow")))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageEndingWith("timed out after 200 ms (request timeout)");
  }

  @Test
  void refusedConnectionThrowsWithTheRedactedUrl() {
    String url;
    try (TestServer closed = TestServer.start()) {
      url = closed.url("/x?password=hunter2");
    }

    assertThatThrownBy(() -> http.get(url))
        .isInstanceOf(UncheckedIOException.class)
        .hasCauseInstanceOf(ConnectException.class)
        .hasMessage("GET " + url.replace("hunter2", "[redacted]") + " failed: connection refused");
  }

  @Test
  void unresolvableHostIsReportedAsAnUnknownHostNotARefusedConnection() {
    // .invalid never resolves (RFC 6761), so no lookup can succeed whatever the resolver.
    assertThatThrownBy(() -> http.get("http://no-such-host.invalid/x"))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessage("GET http://no-such-host.invalid/x failed: unknown host no-such-host.invalid");
  }

  // ---- redirects

  @Test
  void redirectToAnotherOriginCarriesNoneOfTheCallersHeaders() {
    try (TestServer other = TestServer.start()) {
      // Same host, another port: another origin.
      server.reply(302, "", "Location", other.url("/ok"));
      other.reply(200, "{\"n\":1}");

      HttpResult res =
          http.get(
              server.url("/start"),
              RequestOptions.builder()
                  .header("Authorization", "Bearer tok-123")
                  .header("X-Api-Key", "k-1")
                  .header("Accept", "application/vnd.api+json")
                  .build());

      assertThat(res.status()).isEqualTo(200);
      assertThat(server.request(0).header("authorization")).isEqualTo("Bearer tok-123");
      assertThat(other.requests).hasSize(1);
      assertThat(other.request(0).path()).isEqualTo("/ok");
      assertThat(other.request(0).header("authorization")).isNull();
      assertThat(other.request(0).header("x-api-key")).isNull();
      assertThat(other.request(0).header("accept")).isEqualTo("application/json");
      assertThat(other.request(0).header("user-agent")).isEqualTo("watukuy/0.1");
      assertThat(scope.observed).hasSize(1);
      assertThat(scope.observed.get(0).status()).isEqualTo(200);
    }
  }

  @Test
  void redirectWithinTheOriginKeepsTheCallersHeadersAndARelativeLocationResolves() {
    server.reply(301, "", "Location", "/moved?x=1").reply(200, "[]");

    http.get(
        server.url("/start"),
        RequestOptions.builder().header("Authorization", "Bearer tok-123").build());

    assertThat(server.requests).hasSize(2);
    assertThat(server.request(1).path()).isEqualTo("/moved");
    assertThat(server.request(1).rawQuery()).isEqualTo("x=1");
    assertThat(server.request(1).header("authorization")).isEqualTo("Bearer tok-123");
  }

  @Test
  void redirectBackToTheOriginalOriginCarriesTheHeadersAgain() {
    try (TestServer other = TestServer.start()) {
      server.reply(307, "", "Location", other.url("/b")).reply(200, "[]");
      other.reply(308, "", "Location", server.url("/c"));

      http.get(
          server.url("/a"),
          RequestOptions.builder().header("Authorization", "Bearer tok-123").build());

      assertThat(other.request(0).header("authorization")).isNull();
      assertThat(server.request(1).path()).isEqualTo("/c");
      assertThat(server.request(1).header("authorization")).isEqualTo("Bearer tok-123");
    }
  }

  @Test
  void a307Or308WithinTheOriginRepeatsThePostWithItsBody() {
    server
        .reply(307, "", "Location", "/again")
        .reply(308, "", "Location", "/search")
        .reply(200, "{}");

    http.post(server.url("/orders"), new Order("o-1", 3), RequestOptions.DEFAULT);

    assertThat(server.requests)
        .extracting(TestServer.Recorded::method)
        .containsExactly("POST", "POST", "POST");
    assertThat(server.request(2).path()).isEqualTo("/search");
    assertThat(server.request(2).body()).isEqualTo("{\"id\":\"o-1\",\"total\":3}");
    assertThat(server.request(2).header("content-type")).isEqualTo("application/json");
  }

  @ParameterizedTest
  @ValueSource(ints = {301, 302, 303})
  void aPostAnsweredBy301302Or303IsAFetchErrorNamingTheStatusAndLocationNotAGet(int status) {
    server.reply(status, "", "Location", "/result?api_key=k-1");

    assertThatThrownBy(
            () -> http.post(server.url("/search"), new Order("o-1", 3), RequestOptions.DEFAULT))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessage(
            "POST "
                + server.url("/search")
                + " failed: HTTP "
                + status
                + " redirect to "
                + server.url("/result?api_key=[redacted]")
                + " not followed: following it would send a GET without the body, another"
                + " request than the POST; point the request at the URL that answers the POST (a"
                + " 307 or 308 within the same origin is followed)");
    // Only the POST went out: no GET without its body.
    assertThat(server.requests).extracting(TestServer.Recorded::method).containsExactly("POST");
  }

  @Test
  void aPutAnswered303IsRefusedLikeAPost() {
    server.reply(303, "", "Location", "/result");

    assertThatThrownBy(() -> http.put(server.url("/items"), "{}", RequestOptions.DEFAULT))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining("PUT " + server.url("/items") + " failed: HTTP 303 redirect to");
    assertThat(server.requests).hasSize(1);
  }

  @Test
  void a307OfAPostToAnotherOriginIsRefusedAndTheOtherOriginGetsNothing() {
    try (TestServer other = TestServer.start()) {
      server.reply(307, "", "Location", other.url("/search"));

      assertThatThrownBy(
              () -> http.post(server.url("/search"), new Order("o-1", 3), RequestOptions.DEFAULT))
          .isInstanceOf(UncheckedIOException.class)
          .hasMessageContaining(
              "failed: HTTP 307 redirect to "
                  + other.url("/search")
                  + " not followed: a redirect to another origin is not followed with the"
                  + " request's body");
      assertThat(other.requests).isEmpty();
    }
  }

  @Test
  void moreThanFiveRedirectsFail() {
    for (int i = 0; i < 6; i++) server.reply(302, "", "Location", "/r" + i);

    assertThatThrownBy(() -> http.get(server.url("/start")))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessage("GET " + server.url("/start") + " failed: more than 5 redirects");
    assertThat(server.requests).hasSize(6);
  }

  @Test
  void validatorsAreSentAcrossARedirectAndItsEtagIsStoredUnderTheRequestedUrl() {
    try (TestServer other = TestServer.start()) {
      String url = server.url("/orders");
      scope.trustNotModified = true;
      server
          .reply(302, "", "Location", other.url("/orders"))
          .reply(302, "", "Location", other.url("/orders"));
      other.reply(200, "[]", "ETag", "\"v1\"").reply(304, "");

      http.get(url);
      assertThatThrownBy(() -> http.get(url)).isInstanceOf(NotModified.class);

      assertThat(scope.validators).containsOnlyKeys(DefaultHttp.sha256Hex(url));
      assertThat(server.request(1).header("if-none-match")).isEqualTo("\"v1\"");
      assertThat(other.request(1).header("if-none-match")).isEqualTo("\"v1\"");
    }
  }

  @Test
  void interruptedRequestRestoresTheInterruptFlag() {
    server.reply(200, "[]");
    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(() -> http.get(server.url("/orders")))
          .isInstanceOf(UncheckedIOException.class)
          .hasCauseInstanceOf(InterruptedIOException.class)
          .hasMessageEndingWith(" interrupted");
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void malformedUrlIsRejectedWithoutEchoingSecrets() {
    assertThatThrownBy(() -> http.get("https://api.test/x?api_key=s3cret&q=a b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("GET https://api.test/x?api_key=[redacted]&q=a b: not a valid URL")
        .hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> http.get("ftp://api.test/x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("GET ftp://api.test/x: not an absolute http or https URL");
  }

  private static HttpValidator validator(String etag, String lastModified) {
    return new HttpValidator(etag, lastModified, Instant.parse("2026-11-29T00:00:00Z"));
  }
}
