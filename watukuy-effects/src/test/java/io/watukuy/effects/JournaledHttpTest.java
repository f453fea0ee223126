package io.watukuy.effects;

import static io.watukuy.effects.EffectFixture.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import io.watukuy.SealingKeys;
import io.watukuy.effects.EffectFixture.Order;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.JournalEntry;
import io.watukuy.store.memory.MemoryStore;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * docs/effects.md, "HTTP calls": {@code ctx.http()} against a real server on 127.0.0.1. The server
 * answers from a script (status, Retry-After, body) and records every request it got.
 */
class JournaledHttpTest {
  record Seen(String method, String pathAndQuery, String key, String authorization, String body) {}

  record Answer(int status, String retryAfter, String body) {}

  private static final String EFFECT = "Notify";

  private final EffectFixture<MemoryStore> fixture = EffectFixture.memory();

  /** An engine running {@link #EFFECT} with {@code arm} on created orders, keyed by customer. */
  private Effects effects(Arm<Order> arm, @Nullable SealingKeys secretKey) {
    return fixture.createdByCustomer(EFFECT, arm, secretKey);
  }

  private static void drain(Effects effects) {
    EffectFixture.drain(effects, EFFECT);
  }

  private InvocationRow row(long position) {
    return fixture.row(EFFECT, position).orElseThrow();
  }

  private final ConcurrentLinkedQueue<Answer> script = new ConcurrentLinkedQueue<>();
  private final List<Seen> seen = Collections.synchronizedList(new ArrayList<>());
  private LocalReceiver server;
  private String base;

  @BeforeEach
  void start() {
    server = LocalReceiver.start().route("/", this::answer).route("/big/", this::big);
    base = server.base();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private void answer(HttpExchange x) throws IOException {
    String body = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    String query = x.getRequestURI().getRawQuery();
    seen.add(
        new Seen(
            x.getRequestMethod(),
            x.getRequestURI().getRawPath() + (query == null ? "" : "?" + query),
            x.getRequestHeaders().getFirst("Idempotency-Key"),
            x.getRequestHeaders().getFirst("Authorization"),
            body));
    Answer a = script.poll();
    if (a == null) a = new Answer(200, null, "ok");
    if (a.retryAfter() != null) x.getResponseHeaders().add("Retry-After", a.retryAfter());
    x.getResponseHeaders().add("Set-Cookie", "session=cookie-secret");
    x.getResponseHeaders().add("X-Receipt", "r-1");
    byte[] out = a.body().getBytes(StandardCharsets.UTF_8);
    x.sendResponseHeaders(a.status(), out.length == 0 ? -1 : out.length);
    x.getResponseBody().write(out);
    x.close();
  }

  /**
   * {@code /big/<bytes>/<fixed|chunked>}: a 200 with a body of that many bytes, with its
   * Content-Length or chunked without one.
   */
  private void big(HttpExchange x) throws IOException {
    x.getRequestBody().readAllBytes();
    String[] parts = x.getRequestURI().getPath().split("/");
    seen.add(new Seen(x.getRequestMethod(), x.getRequestURI().getPath(), null, null, ""));
    int size = Integer.parseInt(parts[2]);
    x.sendResponseHeaders(200, parts[3].equals("chunked") ? 0 : size);
    byte[] chunk = new byte[8192];
    java.util.Arrays.fill(chunk, (byte) 'x');
    try (var out = x.getResponseBody()) {
      for (int left = size; left > 0; left -= chunk.length)
        out.write(chunk, 0, Math.min(left, chunk.length));
    } catch (IOException gone) {
      // the client stopped reading: what the limit is for
    }
  }

  /** Runs one invocation that GETs {@code path} with a token in the query; returns the bodies. */
  private List<String> get(String path) {
    List<String> bodies = Collections.synchronizedList(new ArrayList<>());
    fixture.created("alice");
    Effects effects =
        effects(
            (ctx, e) ->
                bodies.add(
                    ctx.http()
                        .send(EffectHttp.Request.of("GET", base + path + "?token=query-secret"))
                        .body()),
            null);
    drain(effects);
    fixture.clock.advance(Duration.ofMillis(200));
    drain(effects);
    return bodies;
  }

  @Test
  void aBodyOfExactlyTheLimitIsJournaled() {
    List<String> bodies = get("/big/" + EffectHttp.MAX_RESPONSE_BYTES + "/chunked");

    assertThat(bodies).hasSize(1);
    assertThat(bodies.get(0)).hasSize(1 << 20);
    assertThat(row(1).status()).isEqualTo(InvocationStatus.DONE);
    assertThat(journal()).hasSize(1);
  }

  @ParameterizedTest
  // one byte over, and three times the limit (where the client may end the cancelled exchange
  // with an IOException rather than the over-limit result: still no re-send)
  @CsvSource({"fixed, 1048577", "chunked, 1048577", "fixed, 3145728", "chunked, 3145728"})
  void aBodyOverTheLimitFailsTheInvocationNamingEffectUrlAndLimitAndIsRetriedUnderBackoff(
      String framing, long size) {
    List<String> bodies = get("/big/" + size + "/" + framing);

    assertThat(bodies).as(framing).isEmpty();
    assertThat(journal()).as(framing).isEmpty();
    // Not re-sent inside the call; sent again by the invocation's retry after 200 ms.
    assertThat(seen).as(framing).hasSize(2);
    InvocationRow row = row(1);
    assertThat(row.status()).isEqualTo(InvocationStatus.FAILED);
    assertThat(row.attempt()).isEqualTo(2);
    assertThat(row.error())
        .as(framing)
        .contains("effect Notify: the response to GET " + base + "/big/" + size + "/" + framing)
        .contains("?token=[redacted]")
        .contains("larger than 1048576 bytes")
        .doesNotContain("query-secret");
    assertThat(Duration.between(row.updatedAt(), row.retryAt())).isEqualTo(Duration.ofMillis(400));
  }

  private void then(int status, String retryAfter) {
    script.add(new Answer(status, retryAfter, "status " + status));
  }

  private List<JournalEntry> journal() {
    return journal(1);
  }

  private List<JournalEntry> journal(long position) {
    return fixture.effects.listJournal(EFFECT, ORDERS, position, 0, 10);
  }

  /**
   * The Idempotency-Key docs/effects.md ("HTTP calls") promises for the call journaled as {@code
   * journalKey} at {@code position} of the unpartitioned orders log: SHA-256 of {@code
   * <len>:<effect>|<len>:<poller>|<len>:<partition>|<position>|<journal key>}.
   */
  static String idempotencyKey(long position, String journalKey) throws Exception {
    byte[] preimage =
        ("6:Notify|6:orders|0:|" + position + "|" + journalKey).getBytes(StandardCharsets.UTF_8);
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(preimage));
  }

  /** Runs one invocation whose arm POSTs a charge with a secret header and a query token. */
  private List<EffectHttp.Response> charge() {
    List<EffectHttp.Response> got = Collections.synchronizedList(new ArrayList<>());
    fixture.created("alice");
    Effects effects =
        effects(
            (ctx, e) ->
                got.add(
                    ctx.http()
                        .send(
                            EffectHttp.Request.of("POST", base + "/charges?token=query-secret")
                                .header("Authorization", "Bearer header-secret")
                                .body("{\"amount\":5}"))),
            null);
    drain(effects);
    return got;
  }

  @Test
  void everyRequestCarriesItsEventsIdempotencyKeyAndTheJournalKeepsNoSecret() throws Exception {
    List<EffectHttp.Response> got = charge();

    assertThat(got).extracting(EffectHttp.Response::status).containsExactly(200);
    assertThat(got.get(0).header("X-Receipt")).isEqualTo("r-1");
    assertThat(seen).hasSize(1);
    Seen request = seen.get(0);
    assertThat(request.authorization()).isEqualTo("Bearer header-secret");
    assertThat(request.body()).isEqualTo("{\"amount\":5}");
    JournalEntry row = journal().get(0);
    assertThat(request.key())
        .matches("[0-9a-f]{64}")
        .isEqualTo(idempotencyKey(1, row.callKey()))
        .isNotEqualTo(row.callKey());
    assertThat(row.label()).isEqualTo("POST " + base + "/charges");
    assertThat(row.subject()).isNull();
    assertThat(row.result() + row.label())
        .contains("r-1")
        .doesNotContain("header-secret")
        .doesNotContain("query-secret")
        .doesNotContain("cookie-secret")
        .doesNotContain("amount");
  }

  @Test
  void twoEventsSendingTheSameRequestSendTwoIdempotencyKeys() throws Exception {
    fixture.created("alice", "alice");
    Effects effects =
        effects(
            (ctx, e) ->
                ctx.http()
                    .send(EffectHttp.Request.of("POST", base + "/charges").body("{\"amount\":5}")),
            null);
    drain(effects);

    assertThat(row(1).status()).isEqualTo(InvocationStatus.DONE);
    assertThat(row(2).status()).isEqualTo(InvocationStatus.DONE);
    assertThat(seen).hasSize(2);
    // One request, so one journal key; two events, so two keys at the receiver.
    String journalKey = journal(1).get(0).callKey();
    assertThat(journal(2).get(0).callKey()).isEqualTo(journalKey);
    assertThat(seen)
        .extracting(Seen::key)
        .doesNotHaveDuplicates()
        .containsExactly(idempotencyKey(1, journalKey), idempotencyKey(2, journalKey));
  }

  @Test
  void aReplayReturnsTheJournaledResponseWithoutARequest() {
    List<EffectHttp.Response> got = new ArrayList<>();
    fixture.created("alice");
    Effects effects =
        effects(
            (ctx, e) -> {
              got.add(ctx.http().send(EffectHttp.Request.of("GET", base + "/customers/alice")));
              if (ctx.attempt() == 1) throw new IllegalStateException("the next step failed");
            },
            null);
    drain(effects);
    fixture.clock.advance(Duration.ofMillis(200));
    drain(effects);

    assertThat(row(1).status()).isEqualTo(InvocationStatus.DONE);
    assertThat(row(1).attempt()).isEqualTo(2);
    assertThat(seen).hasSize(1);
    assertThat(got).hasSize(2);
    assertThat(got.get(1)).isEqualTo(got.get(0));
  }

  @Test
  void twoServerErrorsThenSuccessAreOneJournalRowAndThreeRequests() throws Exception {
    then(503, null);
    then(503, null);
    Instant before = fixture.clock.now();
    List<EffectHttp.Response> got = charge();

    assertThat(got).extracting(EffectHttp.Response::status).containsExactly(200);
    assertThat(seen).hasSize(3);
    assertThat(seen)
        .extracting(Seen::key)
        .containsOnly(idempotencyKey(1, journal().get(0).callKey()));
    assertThat(journal()).hasSize(1);
    assertThat(row(1).status()).isEqualTo(InvocationStatus.DONE);
    assertThat(row(1).attempt()).isEqualTo(1);
    // The re-sends waited 250 ms, then 500 ms, on the injected clock.
    assertThat(Duration.between(before, fixture.clock.now())).isEqualTo(Duration.ofMillis(750));
  }

  @Test
  void aSpentLoopFailsTheInvocationWithoutARowAndNeverLowersItsBackoff() {
    for (int i = 0; i < EffectHttp.MAX_ATTEMPTS; i++) then(429, "0");
    List<EffectHttp.Response> got = charge();

    assertThat(got).isEmpty();
    assertThat(seen).hasSize(4);
    assertThat(journal()).isEmpty();
    InvocationRow row = row(1);
    assertThat(row.status()).isEqualTo(InvocationStatus.FAILED);
    assertThat(row.error())
        .contains("POST " + base + "/charges")
        .contains("429")
        .doesNotContain("query-secret");
    // Retry-After: 0 is shorter than the invocation's own 200 ms: it does not lower it.
    assertThat(Duration.between(row.updatedAt(), row.retryAt())).isEqualTo(Duration.ofMillis(200));
  }

  @Test
  void theInvocationsRetrySendsTheSameIdempotencyKey() throws Exception {
    for (int i = 0; i < EffectHttp.MAX_ATTEMPTS; i++) then(503, null);
    fixture.created("alice");
    Effects effects =
        effects((ctx, e) -> ctx.http().send(EffectHttp.Request.of("PUT", base + "/a")), null);
    drain(effects);
    assertThat(row(1).status()).isEqualTo(InvocationStatus.FAILED);
    fixture.clock.advance(Duration.ofMillis(200));
    drain(effects);

    assertThat(row(1).status()).isEqualTo(InvocationStatus.DONE);
    assertThat(row(1).attempt()).isEqualTo(2);
    assertThat(seen).hasSize(EffectHttp.MAX_ATTEMPTS + 1);
    assertThat(seen)
        .extracting(Seen::key)
        .containsOnly(idempotencyKey(1, journal().get(0).callKey()));
  }

  @Test
  void aRetryAfterRaisesTheInvocationsBackoff() {
    then(503, "120");
    charge();

    // Longer than the next re-send: the loop stops at once and the invocation waits 120 s.
    assertThat(seen).hasSize(1);
    InvocationRow row = row(1);
    assertThat(row.status()).isEqualTo(InvocationStatus.FAILED);
    assertThat(Duration.between(row.updatedAt(), row.retryAt())).isEqualTo(Duration.ofSeconds(120));
  }

  @Test
  void aRetryAfterRaisesTheBackoffToFiveMinutesAtMost() {
    then(429, "3600");
    charge();

    InvocationRow row = row(1);
    assertThat(Duration.between(row.updatedAt(), row.retryAt())).isEqualTo(Duration.ofMinutes(5));
  }

  @Test
  void aClientErrorReachesTheArmAndIsJournaled() {
    then(400, null);
    List<EffectHttp.Response> got = charge();

    assertThat(got).extracting(EffectHttp.Response::status).containsExactly(400);
    assertThat(got.get(0).body()).isEqualTo("status 400");
    assertThat(seen).hasSize(1);
    assertThat(journal()).hasSize(1);
    assertThat(journal().get(0).result()).contains("400");
    assertThat(row(1).status()).isEqualTo(InvocationStatus.DONE);
  }

  @Test
  void aRedirectIsNotFollowedItReachesTheArmAsItsStatusAndIsJournaled() {
    then(302, null);
    List<EffectHttp.Response> got = charge();

    assertThat(got).extracting(EffectHttp.Response::status).containsExactly(302);
    assertThat(seen).hasSize(1);
    assertThat(journal()).hasSize(1);
    assertThat(row(1).status()).isEqualTo(InvocationStatus.DONE);
  }

  @Test
  void aTransportErrorIsResentThenFailsTheInvocation() throws IOException {
    try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      base = "http://127.0.0.1:" + closed.getLocalPort(); // refused once closed
    }
    List<EffectHttp.Response> got = charge();

    assertThat(got).isEmpty();
    InvocationRow row = row(1);
    assertThat(row.status()).isEqualTo(InvocationStatus.FAILED);
    assertThat(row.error()).contains("after 4 attempts").doesNotContain("query-secret");
  }

  @Test
  void aRequestShowsNoHeaderValueQueryOrBody() {
    EffectHttp.Request r =
        EffectHttp.Request.of("POST", base + "/charges?token=query-secret")
            .header("Authorization", "Bearer header-secret")
            .body("{\"card\":\"body-secret\"}");

    assertThat(r.label()).isEqualTo("POST " + base + "/charges");
    assertThat(r.toString())
        .contains("Authorization")
        .doesNotContain("header-secret")
        .doesNotContain("query-secret")
        .doesNotContain("body-secret");
  }

  @Test
  void aMalformedUrlIsRefusedWithoutQuotingIt() {
    assertThatThrownBy(() -> EffectHttp.Request.of("GET", base + "/x?token=query-secret&a=b c"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a valid URI")
        .hasMessageNotContaining("query-secret");
    assertThatThrownBy(() -> EffectHttp.Request.of("GET", "ftp://host/x?token=query-secret"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ftp://host/x")
        .hasMessageNotContaining("query-secret");
  }

  @Test
  void anArmSettingItsOwnIdempotencyKeyIsToldTheHeaderIsTaken() {
    fixture.created("alice");
    Effects effects =
        effects(
            (ctx, e) ->
                ctx.http()
                    .send(
                        new EffectHttp.Request(
                            "POST",
                            java.net.URI.create(base + "/x"),
                            Map.of("idempotency-key", "mine"),
                            null)),
            null);
    drain(effects);

    assertThat(seen).isEmpty();
    assertThat(row(1).error()).contains("Idempotency-Key").contains("POST " + base + "/x");
  }
}
