package io.watukuy.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.watukuy.CredentialRevokedException;
import io.watukuy.OutgoingRequest;
import io.watukuy.SealingKeys;
import io.watukuy.StoreException;
import io.watukuy.spi.CredentialStore;
import io.watukuy.spi.StoredCredential;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.VirtualClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RefreshTokenSigner}'s protocol (docs/config.md, "auth") on a {@link MemoryStore} and a
 * virtual clock, against a token endpoint on 127.0.0.1 that rotates refresh tokens and answers
 * {@code invalid_grant} to a refresh token used twice, as a strict authorization server does (RFC
 * 9700, section 4.14.2). Two signers on one store stand for two instances. The end-to-end run with
 * two daemons on PostgreSQL is OAuth2RefreshTokenExampleTest in examples/oauth2-refresh-token.
 */
class RefreshTokenSignerTest {
  private static final String NAME = "crm";
  private static final SealingKeys KEYS =
      SealingKeys.builder()
          .key("secretKey", "k1", Base64.getEncoder().encodeToString(new byte[32]))
          .random(new Random(7))
          .build();

  private HttpServer server;
  private final Set<String> validRefreshTokens = ConcurrentHashMap.newKeySet();
  private final List<String> grantsUsed = new CopyOnWriteArrayList<>();
  private final AtomicInteger issued = new AtomicInteger();
  private volatile boolean rotate = true;
  private volatile CountDownLatch hold = new CountDownLatch(0);
  private final CountDownLatch arrived = new CountDownLatch(1);
  private final VirtualClock clock = new VirtualClock();
  private final MemoryStore memory = new MemoryStore();

  @BeforeEach
  void start() throws IOException {
    validRefreshTokens.add("rt-0");
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/token",
        ex -> {
          Map<String, String> form =
              form(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          arrived.countDown();
          try {
            hold.await(10, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          String rt = form.get("refresh_token");
          grantsUsed.add(rt);
          int status;
          String body;
          if (!"refresh_token".equals(form.get("grant_type")) || !validRefreshTokens.remove(rt)) {
            status = 400;
            // A description quoting the token, as some servers write: it must come out hidden.
            body =
                "{\"error\":\"invalid_grant\",\"error_description\":\"refresh token "
                    + rt
                    + " is not valid\"}";
          } else {
            int n = issued.incrementAndGet();
            String next = rotate ? "rt-" + n : rt;
            validRefreshTokens.add(next);
            status = 200;
            body =
                "{\"access_token\":\"at-"
                    + n
                    + "\",\"token_type\":\"Bearer\",\"expires_in\":60,\"refresh_token\":\""
                    + next
                    + "\"}";
          }
          byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().set("Content-Type", "application/json");
          ex.sendResponseHeaders(status, bytes.length);
          ex.getResponseBody().write(bytes);
          ex.close();
        });
    server.start();
  }

  @AfterEach
  void stop() {
    hold.countDown();
    server.stop(0);
  }

  private static Map<String, String> form(String body) {
    Map<String, String> out = new HashMap<>();
    for (String pair : body.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0)
        out.put(
            pair.substring(0, eq),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
    }
    return out;
  }

  private RefreshTokenSigner.Builder signer(String owner, CredentialStore store) {
    return RefreshTokenSigner.builder(
            NAME,
            "http://127.0.0.1:" + server.getAddress().getPort() + "/token",
            "watukuy",
            store,
            KEYS)
        .clientSecret("cl1ent-s3cret")
        .initialRefreshToken("rt-0")
        .owner(owner)
        .earlyRefresh(Duration.ofSeconds(10))
        .timeout(Duration.ofSeconds(5))
        .time(clock);
  }

  private static String sign(RefreshTokenSigner signer) {
    OutgoingRequest r =
        new OutgoingRequest("GET", URI.create("https://api.example.com/x"), Map.of(), new byte[0]);
    signer.sign(r);
    return r.header("Authorization").orElseThrow();
  }

  private String storedRefreshToken() {
    String sealed = memory.loadCredential(NAME).orElseThrow().sealed();
    String json = KEYS.open(NAME, sealed);
    return json.replaceAll(".*\"refreshToken\":\"([^\"]+)\".*", "$1");
  }

  @Test
  void seedsTheRowOnceRotatesAndStoresOnlySealedTokens() {
    RefreshTokenSigner a = signer("a", memory).build();

    assertThat(sign(a)).isEqualTo("Bearer at-1");

    StoredCredential row = memory.loadCredential(NAME).orElseThrow();
    assertThat(row.version()).as("1 seed, 2 claim, 3 new tokens").isEqualTo(3);
    assertThat(row.claimOwner()).isNull();
    assertThat(row.sealed()).startsWith("v1:k1:").doesNotContain("rt-", "at-");
    assertThat(storedRefreshToken()).isEqualTo("rt-1");
    assertThat(a.secretValues()).contains("cl1ent-s3cret", "at-1", "rt-1");

    // A second instance whose YAML still names the seed: the stored (rotated) row wins.
    RefreshTokenSigner b = signer("b", memory).build();
    assertThat(sign(b)).isEqualTo("Bearer at-1");
    assertThat(grantsUsed).containsExactly("rt-0");
  }

  @Test
  void oneRefreshPerExpiryAcrossInstancesAndTheSameTokenWhenTheServerDoesNotRotate() {
    RefreshTokenSigner a = signer("a", memory).build();
    RefreshTokenSigner b = signer("b", memory).build();
    for (int expiry = 1; expiry <= 3; expiry++) {
      assertThat(sign(a)).isEqualTo("Bearer at-" + expiry);
      assertThat(sign(b)).as("b re-reads the row a just wrote").isEqualTo("Bearer at-" + expiry);
      clock.advance(Duration.ofSeconds(50)); // 60 s tokens, renewed 10 s early
    }
    assertThat(grantsUsed).containsExactly("rt-0", "rt-1", "rt-2");

    rotate = false;
    assertThat(sign(b)).isEqualTo("Bearer at-4");
    assertThat(storedRefreshToken()).as("kept when the answer has the same").isEqualTo("rt-3");
  }

  @Test
  void theInstanceThatFindsAClaimWaitsAndUsesTheClaimantsTokenInsteadOfRefreshing()
      throws Exception {
    VirtualClock held = clock.withoutTimeSkipping();
    RefreshTokenSigner a = signer("a", memory).time(held).build();
    RefreshTokenSigner b = signer("b", memory).time(held).pollEvery(Duration.ofMillis(200)).build();
    hold = new CountDownLatch(1);
    AtomicReference<Object> aResult = new AtomicReference<>();
    AtomicReference<Object> bResult = new AtomicReference<>();

    Thread ta = new Thread(() -> aResult.set(attempt(a)));
    ta.start();
    assertThat(arrived.await(10, TimeUnit.SECONDS)).as("a's grant reached the server").isTrue();
    assertThat(memory.loadCredential(NAME).orElseThrow().claimOwner()).isEqualTo("a");

    Thread tb = new Thread(() -> bResult.set(attempt(b)));
    tb.start();
    assertThat(held.awaitSleepers(1, Duration.ofSeconds(10)))
        .as("b waits on the clock instead of refreshing")
        .isTrue();

    hold.countDown();
    ta.join(10_000);
    held.advance(Duration.ofMillis(200));
    tb.join(10_000);

    assertThat(aResult.get()).isEqualTo("Bearer at-1");
    assertThat(bResult.get()).isEqualTo("Bearer at-1");
    assertThat(grantsUsed).containsExactly("rt-0");
    assertThat(b.tokenRequests()).isZero();
  }

  @Test
  void theInstanceWhoseClaimLosesTheCompareAndSetReReadsAndNeverRefreshes() {
    RefreshTokenSigner a = signer("a", memory).build();
    sign(a); // at-1, row version 3
    clock.advance(Duration.ofSeconds(50));
    AtomicReference<RefreshTokenSigner> first = new AtomicReference<>(a);
    // b reads version 3 and, right before its claim, a refreshes: b's compare-and-set loses.
    CredentialStore racing =
        new Forwarding(memory) {
          @Override
          public boolean compareAndSetCredential(long expected, StoredCredential next) {
            RefreshTokenSigner now = first.getAndSet(null);
            if (now != null) sign(now);
            return super.compareAndSetCredential(expected, next);
          }
        };
    RefreshTokenSigner b = signer("b", racing).build();

    assertThat(sign(b)).isEqualTo("Bearer at-2");
    assertThat(grantsUsed)
        .as("no grant with the refresh token a spent")
        .containsExactly("rt-0", "rt-1");
    assertThat(b.tokenRequests()).isZero();
  }

  @Test
  void invalidGrantIsRevokedWithTheServersMessageHiddenAndNotRetriedUntilTheRowChanges() {
    validRefreshTokens.clear(); // rt-0 was revoked at the server
    RefreshTokenSigner a = signer("a", memory).build();

    assertThatThrownBy(() -> sign(a))
        .isInstanceOf(CredentialRevokedException.class)
        .hasMessageContaining("credential crm: token endpoint http://127.0.0.1:")
        .hasMessageContaining("HTTP 400 invalid_grant")
        .hasMessageContaining("watukuy auth set CONFIG crm")
        .hasMessageNotContaining("rt-0");
    assertThat(memory.loadCredential(NAME).orElseThrow().claimOwner())
        .as("the claim is given back")
        .isNull();

    clock.advance(Duration.ofMinutes(10));
    assertThatThrownBy(() -> sign(a)).isInstanceOf(CredentialRevokedException.class);
    assertThat(a.tokenRequests()).as("no second grant with a revoked token").isEqualTo(1);

    // An operator's `auth set`: a new row version.
    validRefreshTokens.add("rt-new");
    StoredCredential row = memory.loadCredential(NAME).orElseThrow();
    memory.compareAndSetCredential(
        row.version(),
        row.next(
            RefreshTokenSigner.sealRefreshToken(KEYS, NAME, "rt-new"), null, null, clock.now()));
    clock.advance(Duration.ofMinutes(10));
    assertThat(sign(a)).isEqualTo("Bearer at-1");
  }

  /**
   * The two-daemon report: each instance's claim and release changed the row version, so the other
   * took "the row changed" for an operator's {@code auth set} and sent the spent token again (8
   * grants in 27 s). The refusal now lives in the row: one grant across both instances.
   */
  @Test
  void invalidGrantIsRefusedOnceAcrossInstancesUntilAuthSetWritesANewToken() {
    validRefreshTokens.clear(); // the server forgot rt-0 (restarted with a new seed)
    RefreshTokenSigner a = signer("a", memory).build();
    RefreshTokenSigner b = signer("b", memory).build();

    assertThatThrownBy(() -> sign(a))
        .isInstanceOf(CredentialRevokedException.class)
        .hasMessageContaining("HTTP 400 invalid_grant");
    // Every 2 to 4 s for a minute, as the two daemons polled in the report, from both.
    Random random = new Random(42);
    for (int i = 0; i < 20; i++) {
      clock.advance(Duration.ofMillis(2000 + random.nextInt(2001)));
      RefreshTokenSigner s = i % 2 == 0 ? b : a;
      assertThatThrownBy(() -> sign(s))
          .as("attempt %d by %s", i, s.owner())
          .isInstanceOf(CredentialRevokedException.class)
          .hasMessageContaining("HTTP 400 invalid_grant")
          .hasMessageContaining("watukuy auth set CONFIG crm")
          .hasMessageNotContaining("rt-0");
    }
    assertThat(grantsUsed).as("the spent token was sent once in all").containsExactly("rt-0");
    assertThat(b.tokenRequests()).isZero();
    StoredCredential row = memory.loadCredential(NAME).orElseThrow();
    assertThat(row.claimOwner()).isNull();
    assertThat(row.sealed()).doesNotContain("invalid_grant", "rt-0");

    // An operator's `auth set` (AuthCommands writes this payload): one grant, both work.
    validRefreshTokens.add("rt-new");
    memory.compareAndSetCredential(
        row.version(),
        row.next(
            RefreshTokenSigner.sealRefreshToken(KEYS, NAME, "rt-new"), null, null, clock.now()));
    // No back-off after a revocation: the next request reads the new row.
    assertThat(sign(b)).isEqualTo("Bearer at-1");
    assertThat(sign(a)).isEqualTo("Bearer at-1");
    assertThat(grantsUsed).containsExactly("rt-0", "rt-new");
  }

  @Test
  void aFailedPersistLeavesTheNewAccessTokenUnusedUntilTheRotatedTokenIsStored() {
    AtomicReference<Boolean> down = new AtomicReference<>(false);
    CredentialStore faulty =
        new Forwarding(memory) {
          @Override
          public boolean compareAndSetCredential(long expected, StoredCredential next) {
            // Only the write of new tokens (version 3, no claim) fails.
            if (down.get() && next.version() == 3)
              throw new StoreException("postgres 127.0.0.1:5432: connection refused", null);
            return super.compareAndSetCredential(expected, next);
          }
        };
    RefreshTokenSigner a = signer("a", faulty).build();
    down.set(true);

    OutgoingRequest r =
        new OutgoingRequest("GET", URI.create("https://api.example.com/x"), Map.of(), new byte[0]);
    assertThatThrownBy(() -> a.sign(r))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("the rotated refresh token could not be stored")
        .hasMessageContaining("not used until it is")
        .hasMessageNotContaining("rt-1")
        .hasMessageNotContaining("at-1");
    assertThat(r.header("Authorization")).as("the request went unsigned: not sent").isEmpty();
    assertThat(a.secretValues()).as("still hidden while only in memory").contains("rt-1", "at-1");

    down.set(false);
    clock.advance(Duration.ofSeconds(2)); // past the 1 s backoff
    assertThat(sign(a)).isEqualTo("Bearer at-1");
    assertThat(grantsUsed).as("the write is retried, not the grant").containsExactly("rt-0");
    assertThat(storedRefreshToken()).isEqualTo("rt-1");
  }

  @Test
  void aClaimTtlNotLongerThanTwoTimeoutsIsRefused() {
    assertThatThrownBy(
            () ->
                signer("a", memory)
                    .timeout(Duration.ofSeconds(10))
                    .claimTtl(Duration.ofSeconds(20))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("claimTtl must be longer than twice the token request timeout");
  }

  @Test
  void withoutARowOrASeedTheCredentialAsksForAuthSet() {
    RefreshTokenSigner a =
        RefreshTokenSigner.builder(
                NAME,
                "http://127.0.0.1:" + server.getAddress().getPort() + "/token",
                "watukuy",
                memory,
                KEYS)
            .time(clock)
            .build();
    assertThatThrownBy(() -> sign(a))
        .isInstanceOf(CredentialRevokedException.class)
        .hasMessageContaining(
            "no refresh token is stored; set one with `watukuy auth set CONFIG crm`");
  }

  private static Object attempt(RefreshTokenSigner s) {
    try {
      return sign(s);
    } catch (RuntimeException e) {
      return e;
    }
  }

  /** A credential store that forwards to another; tests override one method. */
  private static class Forwarding implements CredentialStore {
    private final CredentialStore to;

    Forwarding(CredentialStore to) {
      this.to = to;
    }

    @Override
    public Optional<StoredCredential> loadCredential(String name) {
      return to.loadCredential(name);
    }

    @Override
    public boolean compareAndSetCredential(long expected, StoredCredential next) {
      return to.compareAndSetCredential(expected, next);
    }

    @Override
    public boolean deleteCredential(String name) {
      return to.deleteCredential(name);
    }

    @Override
    public List<String> listCredentials() {
      return to.listCredentials();
    }
  }
}
