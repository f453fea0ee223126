package io.watukuy.auth;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.oauth2.sdk.RefreshTokenGrant;
import com.nimbusds.oauth2.sdk.token.RefreshToken;
import io.watukuy.CredentialRevokedException;
import io.watukuy.OutgoingRequest;
import io.watukuy.RequestSigner;
import io.watukuy.SealingKeys;
import io.watukuy.StoreException;
import io.watukuy.TimeSource;
import io.watukuy.auth.ClientCredentialsSigner.ClientAuth;
import io.watukuy.auth.ClientCredentialsSigner.TokenEndpointException;
import io.watukuy.spi.CredentialStore;
import io.watukuy.spi.StoredCredential;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * OAuth2 refresh token grant (RFC 6749 section 6) with rotating refresh tokens, kept sealed in the
 * store's credentials table and shared by every instance on that store (docs/config.md, "auth").
 * Sends {@code Authorization: Bearer ACCESS_TOKEN}.
 *
 * <p>The credential's row ({@link CredentialStore}, named {@link Builder#name}) holds the sealed
 * JSON {@code {refreshToken, accessToken, accessExpiresAt, revoked}} ({@link SealingKeys}, the name
 * as associated data). For each request that finds its cached access token expired (its expiry
 * minus {@link Builder#earlyRefresh}) the signer:
 *
 * <ol>
 *   <li>reads the row; an access token there that is still valid (another instance just got it) is
 *       used as it is: one refresh per expiry across instances;
 *   <li>when another instance holds an unexpired claim, waits {@link Builder#pollEvery} on the
 *       clock and reads again, up to {@link Builder#maxWait}; it never refreshes with the refresh
 *       token it read, which the claimant is about to spend;
 *   <li>otherwise claims the row: a compare-and-set from version {@code v} to {@code v + 1} with
 *       itself as {@code claimOwner} until {@code now + claimTtl}; a lost compare-and-set reads
 *       again;
 *   <li>sends the refresh token grant, then writes version {@code v + 2}: the rotated refresh token
 *       (the same one when the server did not rotate), the new access token and its expiry, no
 *       claim. Only after that write succeeded is the access token used. A write that fails keeps
 *       the new tokens in memory only, fails the request with a {@link StoreException} saying so,
 *       and is retried before anything else on the next request: the server may already have
 *       invalidated the old refresh token, so the new one must not be dropped.
 * </ol>
 *
 * <p>{@code invalid_grant} (the refresh token was revoked, expired, or used twice) throws a {@link
 * CredentialRevokedException} with the server's message: the engine opens the key's circuit at
 * once. The claimant writes that message into the sealed row as a {@code revoked} marker when it
 * gives the claim back, so every instance on the store answers later requests with the same
 * exception without asking the server (the refresh token is refused once across all instances),
 * until an operator's {@code watukuy auth set} writes a row without the marker. Should that write
 * fail, the claimant still remembers the row version it refused. Other endpoint failures back off
 * as in {@link ClientCredentialsSigner}. A store without the credential's row is seeded with {@link
 * Builder#initialRefreshToken} (version 1, only if no row exists: a stored row has rotated since
 * and always wins); without one, signing fails with a {@link CredentialRevokedException} asking for
 * {@code watukuy auth set}.
 *
 * <p>Refresh token, access token and client secret are hidden wherever they would be printed
 * ({@link #secretValues()}). Thread-safe: one refresh at a time per instance, and per credential
 * across instances.
 */
public final class RefreshTokenSigner implements RequestSigner {

  /** How long a claim to refresh lasts, unless set; longer than two token request timeouts. */
  public static final Duration DEFAULT_CLAIM_TTL = Duration.ofSeconds(30);

  /** How often a waiting instance reads the row again while another one refreshes. */
  public static final Duration DEFAULT_POLL_EVERY = Duration.ofMillis(200);

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String name;
  private final TokenExchange endpoint;
  private final CredentialStore store;
  private final SealingKeys keys;
  private final String owner;
  private final @Nullable String seed;
  private final @Nullable String seedUnavailable;
  private final Duration earlyRefresh;
  private final Duration claimTtl;
  private final Duration pollEvery;
  private final Duration maxWait;
  private final TimeSource time;

  // Guarded by this.
  private @Nullable String token;
  private @Nullable Instant renewAt;
  private @Nullable String refreshToken;
  private @Nullable String rejected;
  private @Nullable Pending pending;
  private @Nullable CredentialRevokedException revoked;
  private long revokedVersion;
  private final FailureBackoff backoff;
  private long tokenRequests;

  /** Tokens a refresh got whose write to the store failed: kept until the write succeeds. */
  private record Pending(long expectedVersion, StoredCredential row, Payload payload) {}

  /**
   * What the sealed row holds; {@code revoked} is the message of the {@code invalid_grant} that
   * spent the refresh token, shared with every instance (null while the token is good).
   */
  private record Payload(
      String refreshToken,
      @Nullable String accessToken,
      @Nullable Instant accessExpiresAt,
      @Nullable String revoked) {

    Payload(String refreshToken, @Nullable String accessToken, @Nullable Instant accessExpiresAt) {
      this(refreshToken, accessToken, accessExpiresAt, null);
    }
  }

  private RefreshTokenSigner(Builder b) {
    this.name = b.name;
    this.endpoint =
        new TokenExchange(
            b.tokenUrl, b.clientId, b.clientSecret, b.clientAuth, b.scopes, b.audience, b.timeout);
    this.store = b.store;
    this.keys = b.keys;
    this.owner = b.owner;
    this.seed = b.seed;
    this.seedUnavailable = b.seed == null ? b.seedUnavailable : null;
    this.earlyRefresh = b.earlyRefresh;
    this.claimTtl = b.claimTtl;
    this.pollEvery = b.pollEvery;
    this.maxWait = b.maxWait != null ? b.maxWait : b.claimTtl;
    this.backoff = new FailureBackoff(b.backoff);
    this.time = b.time;
    if (claimTtl.compareTo(b.timeout.multipliedBy(2)) <= 0)
      throw new IllegalArgumentException(
          "claimTtl must be longer than twice the token request timeout ("
              + b.timeout
              + "), but was "
              + claimTtl
              + ": a claim that lapses during a refresh lets a second instance spend the same"
              + " refresh token");
  }

  /**
   * A builder.
   *
   * @param name the credential's name: the row's name in the credentials table
   * @param tokenUrl the token endpoint, an absolute http or https URL
   * @param clientId the client identifier
   * @param store where the credential's row lives, shared by every instance
   * @param keys the keys that seal the row
   * @return a new builder
   * @throws IllegalArgumentException if the URL is not absolute http or https, or a name is empty
   */
  public static Builder builder(
      String name, String tokenUrl, String clientId, CredentialStore store, SealingKeys keys) {
    return new Builder(name, tokenUrl, clientId, store, keys);
  }

  /**
   * Seals a refresh token as a fresh row payload (no access token yet), for writing a credential
   * from outside a signer ({@code watukuy auth set}).
   *
   * @param keys the sealing keys
   * @param name the credential's name
   * @param refreshToken the refresh token
   * @return the sealed payload to store under {@code name}
   * @throws IllegalArgumentException if the refresh token is empty or has a line break
   */
  public static String sealRefreshToken(SealingKeys keys, String name, String refreshToken) {
    Credentials.headerValue("refreshToken", refreshToken);
    return keys.seal(name, json(new Payload(refreshToken, null, null)));
  }

  /** The credential's name. */
  public String name() {
    return name;
  }

  /**
   * Why the configured seed could not be read (an unset environment variable, a missing file), as
   * given to {@link Builder#seedUnavailable}; null when there is a seed or none was configured.
   */
  public @Nullable String seedUnavailable() {
    return seedUnavailable;
  }

  /** This instance's claim owner id. */
  public String owner() {
    return owner;
  }

  /** How many token requests this instance sent so far (successful or not). */
  public synchronized long tokenRequests() {
    return tokenRequests;
  }

  @Override
  public void sign(OutgoingRequest request) {
    request.setHeader("Authorization", "Bearer " + currentToken());
  }

  @Override
  public synchronized boolean retryAfterUnauthorized(OutgoingRequest request) {
    // Another thread may have renewed the token since this request was signed: keep that one.
    if (token != null && request.header("Authorization").orElse("").equals("Bearer " + token)) {
      // Remembered so that the same token read back from the store (still "valid" by its
      // expiry) is not taken again: it forces a refresh.
      rejected = token;
      token = null;
      renewAt = null;
    }
    return true;
  }

  @Override
  public synchronized Set<String> secretValues() {
    Set<String> out = new HashSet<>();
    if (endpoint.clientSecret() != null) out.add(endpoint.clientSecret());
    if (token != null) out.add(token);
    if (refreshToken != null) out.add(refreshToken);
    if (seed != null) out.add(seed);
    if (pending != null) {
      out.add(pending.payload().refreshToken());
      if (pending.payload().accessToken() != null) out.add(pending.payload().accessToken());
    }
    return out;
  }

  private synchronized String currentToken() {
    Instant now = time.now();
    if (token != null && (renewAt == null || now.isBefore(renewAt))) return token;
    backoff.throwIfWaiting(now);
    try {
      String t = obtain();
      backoff.succeeded();
      return t;
    } catch (CredentialRevokedException e) {
      // Answered from the row, never by asking the server again: nothing to back off from, and
      // an operator's `auth set` takes effect on the next request instead of after a wait.
      throw e;
    } catch (RuntimeException e) {
      backoff.failed(e, now);
      throw e;
    }
  }

  /** The protocol of the class comment; returns a token that is stored and may be used. */
  private String obtain() {
    long deadline = time.nanoTime() + maxWait.toNanos();
    if (pending != null) return retryPending();
    while (true) {
      Instant now = time.now();
      Optional<StoredCredential> read = store.loadCredential(name);
      if (read.isEmpty()) {
        if (seed == null && seedUnavailable != null)
          throw new CredentialRevokedException(
              "credential "
                  + name
                  + ": no refresh token is stored and the seed cannot be read ("
                  + seedUnavailable
                  + "); provide it, or store one with `watukuy auth set CONFIG "
                  + name
                  + "`");
        if (seed == null)
          throw new CredentialRevokedException(
              "credential "
                  + name
                  + ": no refresh token is stored; set one with `watukuy auth set CONFIG "
                  + name
                  + "` or refreshToken:");
        // Only when no row exists: a stored row has rotated since the seed was written.
        store.compareAndSetCredential(
            0, new StoredCredential(name, 1, sealRefreshToken(keys, name, seed), null, null, now));
        continue;
      }
      StoredCredential row = read.get();
      if (revoked != null) {
        if (row.version() == revokedVersion) throw revoked;
        revoked = null; // an operator stored a new refresh token
      }
      Payload p = parse(keys.open(name, row.sealed()));
      refreshToken = p.refreshToken();
      // Another instance (or this one) was refused this refresh token: no request until an
      // operator's `auth set` writes a row without the marker.
      if (p.revoked() != null) throw new CredentialRevokedException(p.revoked());
      if (usable(p, row, now)) {
        adopt(p, row);
        return Objects.requireNonNull(token);
      }
      if (row.claimedByAnother(owner, now)) {
        waitForClaim(row, deadline);
        continue;
      }
      StoredCredential claimed = row.next(row.sealed(), owner, now.plus(claimTtl), now);
      if (!store.compareAndSetCredential(row.version(), claimed)) {
        // Another instance wrote first: its row (a claim or new tokens) decides, not ours.
        if (time.nanoTime() - deadline >= 0) throw waitedTooLong(row);
        continue;
      }
      return refresh(claimed, p);
    }
  }

  private boolean usable(Payload p, StoredCredential row, Instant now) {
    if (p.accessToken() == null || p.accessToken().equals(rejected)) return false;
    Instant expires = p.accessExpiresAt();
    if (expires == null) return true; // no expires_in: kept until a request is refused
    Instant renew = renewAt(row.updatedAt(), expires);
    return now.isBefore(renew);
  }

  /** {@code earlyRefresh} before the expiry, at most half the lifetime early. */
  private Instant renewAt(Instant issued, Instant expires) {
    Duration half = Duration.between(issued, expires).dividedBy(2);
    Duration early = earlyRefresh.compareTo(half) > 0 ? half : earlyRefresh;
    return expires.minus(early.isNegative() ? Duration.ZERO : early);
  }

  private void adopt(Payload p, StoredCredential row) {
    token = p.accessToken();
    refreshToken = p.refreshToken();
    renewAt = p.accessExpiresAt() == null ? null : renewAt(row.updatedAt(), p.accessExpiresAt());
  }

  private void waitForClaim(StoredCredential row, long deadline) {
    if (time.nanoTime() - deadline >= 0) throw waitedTooLong(row);
    try {
      time.sleep(pollEvery);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(
          "credential " + name + ": interrupted while another instance refreshed it", e);
    }
  }

  private IllegalStateException waitedTooLong(StoredCredential row) {
    return new IllegalStateException(
        "credential "
            + name
            + ": no new access token within "
            + io.watukuy.sink.SinkConfig.formatDuration(maxWait)
            + (row.claimOwner() == null
                ? " (the row kept changing)"
                : " while instance "
                    + row.claimOwner()
                    + " refreshes it (claim until "
                    + row.claimUntil()
                    + ")"));
  }

  private String refresh(StoredCredential claimed, Payload p) {
    tokenRequests++;
    TokenExchange.Tokens t;
    try {
      t =
          endpoint.request(
              new RefreshTokenGrant(new RefreshToken(p.refreshToken())),
              "the refresh token of credential " + name + " (client " + endpoint.clientId() + ")",
              List.of(p.refreshToken()));
    } catch (TokenEndpointException e) {
      if ("invalid_grant".equals(e.error())) {
        String message =
            "credential "
                + name
                + ": "
                + e.getMessage()
                + "; no retry: set a new refresh token with `watukuy auth set CONFIG "
                + name
                + "`";
        revoked = new CredentialRevokedException(message);
        // The row itself says "revoked", so that no instance asks the server again with this
        // token; this instance also remembers the row version in case that write fails.
        Payload marked = new Payload(p.refreshToken(), null, null, message);
        revokedVersion = release(claimed, keys.seal(name, json(marked)), revoked);
        throw revoked;
      }
      release(claimed, claimed.sealed(), e);
      throw e;
    } catch (RuntimeException e) {
      release(claimed, claimed.sealed(), e);
      throw e;
    }
    Instant now = time.now();
    Payload next =
        new Payload(
            t.refreshToken() != null ? t.refreshToken() : p.refreshToken(),
            t.accessToken(),
            t.lifetimeSeconds() > 0 ? now.plusSeconds(t.lifetimeSeconds()) : null);
    StoredCredential written = claimed.next(keys.seal(name, json(next)), null, null, now);
    pending = new Pending(claimed.version(), written, next);
    return retryPending();
  }

  /**
   * Writes the tokens of the last refresh; only a written row's access token is used. Leaves {@link
   * #pending} set when the store fails, so the next request tries again before anything.
   */
  private String retryPending() {
    Pending w = Objects.requireNonNull(pending);
    boolean written;
    try {
      written = store.compareAndSetCredential(w.expectedVersion(), w.row());
      if (!written) {
        // A write that threw earlier may have happened after all: then the row is ours.
        Optional<StoredCredential> now = store.loadCredential(name);
        written = now.isPresent() && now.get().equals(w.row());
      }
    } catch (StoreException e) {
      throw new StoreException(
          "credential "
              + name
              + ": the rotated refresh token could not be stored ("
              + e.getMessage()
              + "); the new access token is not used until it is, and the write is retried on"
              + " the next request",
          e);
    }
    pending = null;
    if (!written) {
      throw new IllegalStateException(
          "credential "
              + name
              + ": another instance wrote the row while this one refreshed it (the claim of "
              + io.watukuy.sink.SinkConfig.formatDuration(claimTtl)
              + " lapsed); the rotated refresh token was dropped and the stored one is read"
              + " again. Raise claimTtl if token requests take that long");
    }
    rejected = null;
    adopt(w.payload(), w.row());
    return Objects.requireNonNull(token);
  }

  /**
   * Gives up the claim after a failed refresh, writing {@code sealed} (best effort: the claim
   * lapses anyway); returns the row version then stored.
   */
  private long release(StoredCredential claimed, String sealed, RuntimeException cause) {
    StoredCredential free = claimed.next(sealed, null, null, time.now());
    try {
      if (store.compareAndSetCredential(claimed.version(), free)) return free.version();
    } catch (RuntimeException e) {
      cause.addSuppressed(e);
    }
    return claimed.version();
  }

  private static String json(Payload p) {
    ObjectNode o = JSON.createObjectNode();
    o.put("refreshToken", p.refreshToken());
    if (p.accessToken() != null) o.put("accessToken", p.accessToken());
    if (p.accessExpiresAt() != null) o.put("accessExpiresAt", p.accessExpiresAt().toString());
    if (p.revoked() != null) o.put("revoked", p.revoked());
    try {
      return JSON.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private Payload parse(String text) {
    try {
      JsonNode o = JSON.readTree(text);
      JsonNode rt = o.get("refreshToken");
      if (rt == null || !rt.isTextual()) throw new IllegalStateException("no refreshToken");
      JsonNode at = o.get("accessToken");
      JsonNode exp = o.get("accessExpiresAt");
      JsonNode rv = o.get("revoked");
      return new Payload(
          rt.asText(),
          at == null ? null : at.asText(),
          exp == null ? null : Instant.parse(exp.asText()),
          rv == null ? null : rv.asText());
    } catch (JsonProcessingException | RuntimeException e) {
      // Never the text: it is the opened secret.
      throw new IllegalStateException(
          "credential " + name + ": the stored row opens but is not a refresh token record");
    }
  }

  /** Builds a {@link RefreshTokenSigner}. Not thread-safe. */
  public static final class Builder {
    private final String name;
    private final URI tokenUrl;
    private final String clientId;
    private final CredentialStore store;
    private final SealingKeys keys;
    private @Nullable String clientSecret;
    private ClientAuth clientAuth = ClientAuth.BASIC;
    private List<String> scopes = List.of();
    private @Nullable String audience;
    private @Nullable String seed;
    private @Nullable String seedUnavailable;
    private String owner = "instance-" + UUID.randomUUID();
    private Duration earlyRefresh = ClientCredentialsSigner.DEFAULT_EARLY_REFRESH;
    private Duration timeout = ClientCredentialsSigner.DEFAULT_TIMEOUT;
    private Duration backoff = ClientCredentialsSigner.DEFAULT_BACKOFF;
    private Duration claimTtl = DEFAULT_CLAIM_TTL;
    private Duration pollEvery = DEFAULT_POLL_EVERY;
    private @Nullable Duration maxWait;
    private TimeSource time = TimeSource.system();

    private Builder(
        String name, String tokenUrl, String clientId, CredentialStore store, SealingKeys keys) {
      this.name = Credentials.nonEmpty("name", Objects.requireNonNull(name, "name"));
      this.tokenUrl = Credentials.tokenUrl(tokenUrl);
      this.clientId = Credentials.nonEmpty("clientId", Objects.requireNonNull(clientId));
      this.store = Objects.requireNonNull(store, "store");
      this.keys = Objects.requireNonNull(keys, "keys");
    }

    /** The client secret of a confidential client; default none (a public client). */
    public Builder clientSecret(String clientSecret) {
      this.clientSecret = Credentials.nonEmpty("clientSecret", clientSecret);
      return this;
    }

    /** How a confidential client authenticates. Default {@link ClientAuth#BASIC}. */
    public Builder clientAuth(ClientAuth clientAuth) {
      this.clientAuth = Objects.requireNonNull(clientAuth, "clientAuth");
      return this;
    }

    /** The scopes asked for with each refresh. Default none (the grant's original scopes). */
    public Builder scopes(List<String> scopes) {
      this.scopes = Credentials.scopes(scopes);
      return this;
    }

    /** The {@code audience} parameter some servers require. Default none. */
    public Builder audience(String audience) {
      this.audience = Credentials.nonEmpty("audience", audience);
      return this;
    }

    /**
     * The first refresh token, stored (sealed, version 1) only when the store has no row for this
     * credential yet. Default none.
     */
    public Builder initialRefreshToken(String refreshToken) {
      this.seed = Credentials.headerValue("refreshToken", refreshToken);
      return this;
    }

    /**
     * A seed was configured but cannot be read now ({@code reason}, e.g. "rt.yaml:9:
     * auths.crm.refreshToken: environment variable CRM_REFRESH_TOKEN is not set"). That is fine
     * while the store holds the credential's row, which always wins over the seed; with no row,
     * signing fails with a {@link CredentialRevokedException} quoting {@code reason} and asking for
     * {@code watukuy auth set}. Ignored when {@link #initialRefreshToken} is set.
     */
    public Builder seedUnavailable(String reason) {
      this.seedUnavailable = Credentials.nonEmpty("reason", reason);
      return this;
    }

    /** This instance's id in claims; default {@code instance-<random UUID>}. */
    public Builder owner(String owner) {
      this.owner = Credentials.nonEmpty("owner", owner);
      return this;
    }

    /** How long before expiry the access token is replaced (at most half its lifetime). */
    public Builder earlyRefresh(Duration earlyRefresh) {
      if (earlyRefresh.isNegative())
        throw new IllegalArgumentException("earlyRefresh must be >= 0, but was " + earlyRefresh);
      this.earlyRefresh = earlyRefresh;
      return this;
    }

    /** Connect and read timeout of a token request. Default 10 s. */
    public Builder timeout(Duration timeout) {
      this.timeout = positive("timeout", timeout);
      return this;
    }

    /** The first wait after a failed token request, doubling. Default 1 s. */
    public Builder backoff(Duration backoff) {
      this.backoff = positive("backoff", backoff);
      return this;
    }

    /**
     * How long a claim to refresh holds off other instances. Default {@link #DEFAULT_CLAIM_TTL};
     * must exceed twice {@link #timeout}.
     */
    public Builder claimTtl(Duration claimTtl) {
      this.claimTtl = positive("claimTtl", claimTtl);
      return this;
    }

    /** How often a waiting instance reads the row again. Default {@link #DEFAULT_POLL_EVERY}. */
    public Builder pollEvery(Duration pollEvery) {
      this.pollEvery = positive("pollEvery", pollEvery);
      return this;
    }

    /** How long to wait for another instance's refresh. Default {@link #claimTtl}. */
    public Builder maxWait(Duration maxWait) {
      this.maxWait = positive("maxWait", maxWait);
      return this;
    }

    /** The clock of expiries, claims, waits and back-offs. Default the system clock. */
    public Builder time(TimeSource time) {
      this.time = Objects.requireNonNull(time, "time");
      return this;
    }

    /**
     * The signer.
     *
     * @throws IllegalArgumentException if {@code claimTtl} is not longer than twice {@code timeout}
     */
    public RefreshTokenSigner build() {
      return new RefreshTokenSigner(this);
    }

    private static Duration positive(String field, Duration d) {
      if (d.isNegative() || d.isZero())
        throw new IllegalArgumentException(field + " must be > 0, but was " + d);
      return d;
    }
  }
}
