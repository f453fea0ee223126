package io.watukuy.store.redis;

import static io.watukuy.store.redis.RowCodec.member;
import static io.watukuy.store.redis.ScriptReplies.parseLong;
import static io.watukuy.store.redis.ScriptReplies.status;
import static io.watukuy.store.redis.ScriptReplies.text;

import io.watukuy.ConfigException;
import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.StoreException;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.CredentialStore;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.HttpValidator;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LeasedState;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.StateStore;
import io.watukuy.spi.StoreCapabilities;
import io.watukuy.spi.StoredCredential;
import io.watukuy.store.redis.RowCodec.Parked;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.jspecify.annotations.Nullable;

/**
 * A {@link StateStore} on Redis (docs/stores.md, "RedisStore and RedisBudgetStore"), reached
 * through a {@link RedisLike} the caller provides, usually a {@link LettuceRedis} over a connection
 * the caller opened. Fits multi-instance deployments and high-frequency pollers; not very large
 * snapshots, where Redis memory is the constraint.
 *
 * <pre>{@code
 * StatefulRedisConnection<String, String> connection = client.connect();
 * StateStore store = RedisStore.open(LettuceRedis.of(connection, uri));
 * StateStore custom = RedisStore.builder(LettuceRedis.of(connection, uri)).prefix("orders:").build();
 * }</pre>
 *
 * <p><b>Options.</b> {@code prefix} (default {@value #DEFAULT_PREFIX}): prepended to every key the
 * store writes, so several stores (or test runs) can share one database; 1 to 200 characters
 * without braces or whitespace.
 *
 * <p><b>Key layout.</b> Per {@link PollerKey}, fifteen keys named {@code
 * <prefix>{<poller>|<partition>}:<part>} (see {@link #keyNames}): the lease hash ({@code meta}:
 * owner, epoch, expiry in epoch ms, and the epoch counter), the state hash ({@code state}: one
 * field per {@link PollerState} field: cursors and schedule as JSON, schema version, last sequence,
 * creation and update times), the items hash plus a sorted set of identities for keyset streaming,
 * the outbox (a sorted set of sequences plus hashes for rows, attempts and errors), the parked hash
 * plus the hold bookkeeping ({@code parked:holds}, {@code held}), the validators hash, and the
 * replay log (a sorted set of sequences, a sorted set by creation time, and a hash of rows). The
 * braces are a Redis Cluster hash tag: every key of one poller key lives in one slot, so a script
 * may touch them all. Inside the tag, {@code %}, braces and {@code |} are escaped as {@code %25},
 * {@code %7B}, {@code %7D} and {@code %7C}, so no two poller keys share a tag. One more key, the
 * set {@code <prefix>keys}, lists the keys with stored state for {@link #listKeys}. It has its own
 * slot, so it is written by a separate call after the first state write of a key, which then marks
 * the state hash ({@code indexed}); a key whose listing failed is listed by its next state write.
 *
 * <p><b>Credentials.</b> The store is also a {@link CredentialStore}: every credential is a field
 * of one hash, {@code <prefix>credentials} (see {@link #credentialsKeyName()}), named by the
 * credential's name, so no name can change a key's name; its value is the version, a {@code /} and
 * the row's fields. A compare-and-set is one script that compares the stored version's digits with
 * the expected ones and writes the whole value, so racing writers of one version have exactly one
 * winner and a reader sees one version whole. Instants are kept to the millisecond.
 *
 * <p><b>Effects.</b> The store keeps effect tables ({@link #effects()}). Every key of one effect is
 * {@code <prefix>{effect:<name>}:<part>} (the name escaped as inside a poller key's tag, which
 * always holds a {@code |} where an effect's never does): the lease, the record (quarantine and
 * counters), the cursors per source key, and per source key the invocation rows, their positions in
 * order, the completed ones by update time, the journal and its calls in ordinal order. One hash
 * tag per effect lets every fenced write check the lease and write its rows in one script. {@code
 * <prefix>{<poller>|<partition>}:effects} mirrors the watermark of each effect with a cursor on
 * that key, in the key's own slot, so {@link #pruneLog} keeps every event above the lowest in one
 * script and {@link EffectStore#lowestWatermark} never scans; {@code <prefix>effects} names every
 * effect and {@code <prefix>subjects} holds the subjects' wrapped data keys, one field per subject.
 * docs/stores.md, "RedisStore and RedisBudgetStore", has the whole layout.
 *
 * <p><b>Ordering.</b> Sequences are stored as sorted-set members of 19 zero-padded decimal digits
 * with score 0 and read with {@code ZRANGEBYLEX}, so order is exact for every non-negative {@code
 * long} (a score is a double and would lose sequences above 2<sup>53</sup>). Identities stream in
 * the byte order of their UTF-8 form.
 *
 * <p><b>Atomicity and fencing.</b> Every write is one Lua script, so it is atomic and isolated:
 * {@link #commitPoll} writes its state patch, items, outbox rows, log rows and parked rows at once
 * or not at all. Every fenced write (a method taking a {@link Lease}) first compares the stored
 * owner and epoch with the lease and throws {@link LeaseLostException} on mismatch, having written
 * nothing. Reads are scripts too, so each read sees one consistent moment of its key.
 *
 * <p><b>Payloads.</b> Rows are stored as length-prefixed text and never decoded inside Redis (no
 * {@code cjson}), so item payloads, envelopes and cursors round-trip exactly: big integers keep
 * every digit, and any Unicode (astral-plane characters, combining marks) comes back as sent.
 * Instants of rows are stored as epoch milliseconds, so values read back are truncated to the
 * millisecond (the state's {@code createdAt} and {@code updatedAt} keep full precision).
 * Acknowledged outbox rows are deleted.
 *
 * <p><b>Lifecycle.</b> Building a store performs no I/O. {@link #migrate()} does nothing: there is
 * no schema, and scripts are loaded on first use ({@code EVALSHA}, then {@code EVAL} when the
 * server answers {@code NOSCRIPT}). {@link #close()} never closes the connection: its owner does.
 * Calls after {@code close()} throw {@link IllegalStateException}.
 *
 * <p><b>Threads and failures.</b> Safe for use from several threads when the {@link RedisLike} is.
 * Each call blocks for one or a few round trips, at most the client's command timeout each. Every
 * client failure (server down, connection lost, timeout, an error reply) is thrown as a {@link
 * StoreException} naming the endpoint, the prefix, the operation and the key, with the client's
 * exception as the cause. A script the server did not run wrote nothing; a script whose reply was
 * lost may have run, as with any remote store. The store keeps no connection state, so it works
 * again as soon as the client has reconnected.
 *
 * @since 0.1
 */
public final class RedisStore implements StateStore, CredentialStore {

  /** Default of {@link Builder#prefix(String)}. */
  public static final String DEFAULT_PREFIX = "watukuy:";

  /** Identities per script in loadVersions: keeps each script short. */
  private static final int CHUNK = 500;

  private final RedisLike redis;
  private final KeyLayout layout;
  private final ScriptRunner scripts;
  private final KeyIndex index;
  private final CredentialRows credentials;
  private final EffectTables effects;

  private RedisStore(RedisLike redis, KeyLayout layout) {
    this.redis = redis;
    this.layout = layout;
    this.scripts = new ScriptRunner(redis, layout);
    this.index = new KeyIndex(scripts);
    this.credentials = new CredentialRows(scripts);
    this.effects = new EffectTables(scripts);
  }

  /**
   * A store with the default prefix. Performs no I/O.
   *
   * @param redis the client; the store never opens or closes its connection
   * @return the store
   * @throws NullPointerException if {@code redis} is null
   */
  public static RedisStore open(RedisLike redis) {
    return builder(redis).build();
  }

  /**
   * A builder with the default options.
   *
   * @param redis the client; the store never opens or closes its connection
   * @return a new builder
   * @throws NullPointerException if {@code redis} is null
   */
  public static Builder builder(RedisLike redis) {
    Objects.requireNonNull(redis, "redis");
    return new Builder(redis);
  }

  /**
   * Options of a {@link RedisStore}. Not thread-safe; {@link #build()} may be called more than
   * once, each call returning a new store.
   */
  public static final class Builder {
    private final RedisLike redis;
    private String prefix = DEFAULT_PREFIX;

    private Builder(RedisLike redis) {
      this.redis = redis;
    }

    /**
     * Prefix of every key the store writes. Defaults to {@value RedisStore#DEFAULT_PREFIX}.
     *
     * @param prefix 1 to 200 characters, no braces (they would move the cluster hash tag), no
     *     whitespace or control characters
     * @return this builder
     * @throws ConfigException when {@code prefix} breaks these rules; the message names the option
     *     and the value
     * @throws NullPointerException if {@code prefix} is null
     */
    public Builder prefix(String prefix) {
      Objects.requireNonNull(prefix, "prefix");
      KeyLayout.checkPrefix(prefix);
      this.prefix = prefix;
      return this;
    }

    /**
     * The store. Performs no I/O.
     *
     * @return a new store with this builder's options
     */
    public RedisStore build() {
      return new RedisStore(redis, new KeyLayout(prefix));
    }
  }

  /**
   * The prefix of every key.
   *
   * @return the prefix in use
   */
  public String prefix() {
    return layout.prefix();
  }

  /**
   * Where the server is, as the client names it.
   *
   * @return {@link RedisLike#endpoint()}
   */
  public String endpoint() {
    return redis.endpoint();
  }

  /**
   * The names of the fifteen keys that hold {@code key}, all with one hash tag: {@code
   * <prefix>{<poller>|<partition>}:meta}, then {@code state}, {@code items}, {@code items:ids},
   * {@code outbox}, {@code outbox:rows}, {@code outbox:attempts}, {@code outbox:errors}, {@code
   * parked}, {@code parked:holds}, {@code held}, {@code validators}, {@code log}, {@code log:time},
   * {@code log:rows}. For operators and tests; performs no I/O.
   *
   * @param key the poller key
   * @return the key names, in that order
   */
  public List<String> keyNames(PollerKey key) {
    Objects.requireNonNull(key, "key");
    return layout.keys(key);
  }

  /**
   * The name of the set that lists the keys with stored state: {@code <prefix>keys}. Performs no
   * I/O.
   *
   * @return the key name
   */
  public String indexKeyName() {
    return layout.index();
  }

  /**
   * The name of the hash that holds the credentials ({@link CredentialStore}): {@code
   * <prefix>credentials}. Performs no I/O.
   *
   * @return the key name
   * @since 0.2
   */
  public String credentialsKeyName() {
    return credentials.keyName();
  }

  @Override
  public String toString() {
    return scripts.storeName();
  }

  // ---- lifecycle

  /** {@inheritDoc} All three: transactions (Lua scripts), the replay log, identity streaming. */
  @Override
  public StoreCapabilities capabilities() {
    return StoreCapabilities.ALL;
  }

  /**
   * Does nothing: Redis needs no schema and scripts are loaded on first use. Idempotent.
   *
   * @throws IllegalStateException after {@link #close()}
   */
  @Override
  public void migrate() {
    scripts.checkOpen();
  }

  /** Marks the store closed. Idempotent. Never closes the connection; leases are not released. */
  @Override
  public void close() {
    scripts.close();
  }

  // ---- leases

  @Override
  public Optional<Lease> acquireLease(PollerKey key, String owner, Duration ttl, Instant now) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(now, "now");
    long expiresMs = now.plus(ttl).toEpochMilli();
    List<Object> reply =
        scripts.run(
            Scripts.ACQUIRE,
            key,
            List.of(owner, Long.toString(now.toEpochMilli()), Long.toString(expiresMs)));
    if ("HELD".equals(status(reply))) {
      return Optional.empty();
    }
    scripts.expectOk(reply, Scripts.ACQUIRE, key);
    long epoch = parseLong(text(reply, 1), "lease epoch", key);
    return Optional.of(new Lease(owner, epoch, Instant.ofEpochMilli(expiresMs)));
  }

  @Override
  public Optional<Lease> renewLease(PollerKey key, Lease lease, Duration ttl, Instant now) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(now, "now");
    long expiresMs = now.plus(ttl).toEpochMilli();
    List<Object> reply =
        scripts.run(
            Scripts.RENEW,
            key,
            List.of(lease.owner(), Long.toString(lease.epoch()), Long.toString(expiresMs)));
    if ("LOST".equals(status(reply))) {
      return Optional.empty();
    }
    scripts.expectOk(reply, Scripts.RENEW, key);
    return Optional.of(new Lease(lease.owner(), lease.epoch(), Instant.ofEpochMilli(expiresMs)));
  }

  @Override
  public void releaseLease(PollerKey key, Lease lease) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    scripts.expectOk(
        scripts.run(Scripts.RELEASE, key, ScriptArgs.lease(lease)), Scripts.RELEASE, key);
  }

  @Override
  public Optional<Lease> getLease(PollerKey key) {
    Objects.requireNonNull(key, "key");
    return Optional.ofNullable(
        ScriptReplies.lease(scripts.run(Scripts.GET_LEASE, key, List.of()), key));
  }

  // ---- a cycle's start and end: one script each (Cycles)

  @Override
  public Optional<LeasedState> acquireLeaseAndLoad(
      PollerKey key, String owner, Duration ttl, Instant now) {
    return Cycles.acquireAndLoad(scripts, key, owner, ttl, now);
  }

  @Override
  public boolean saveStateAndRelease(
      PollerKey key, Lease lease, @Nullable ScheduleState expected, StatePatch patch, Instant now) {
    return Cycles.saveAndRelease(scripts, index, key, lease, expected, patch, now);
  }

  // ---- state

  @Override
  public Optional<PollerState> loadState(PollerKey key) {
    Objects.requireNonNull(key, "key");
    List<Object> reply = scripts.run(Scripts.LOAD_STATE, key, List.of());
    if (reply.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(StateHash.decode(key, ScriptReplies.fieldMap(reply)));
  }

  @Override
  public void saveState(PollerKey key, Lease lease, StatePatch patch, Instant now) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(patch, "patch");
    Objects.requireNonNull(now, "now");
    List<Object> reply =
        scripts.run(Scripts.SAVE_STATE, key, ScriptArgs.saveState(lease, patch, now));
    scripts.fenced(reply, Scripts.SAVE_STATE, key, lease);
    index.addIfNeeded(key, reply);
  }

  @Override
  public void saveStateUnfenced(PollerKey key, StatePatch patch, Instant now) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(patch, "patch");
    Objects.requireNonNull(now, "now");
    List<Object> reply =
        scripts.run(Scripts.SAVE_STATE_UNFENCED, key, ScriptArgs.saveState(null, patch, now));
    scripts.expectOk(reply, Scripts.SAVE_STATE_UNFENCED, key);
    index.addIfNeeded(key, reply);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Reads the index set {@code <prefix>keys}, then checks for each listed key that its state
   * still exists (one short script per key, so a cluster client routes each to its slot).
   */
  @Override
  public List<PollerKey> listKeys(@Nullable String poller) {
    return index.list(poller);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Three steps: the state is unmarked as indexed, the key leaves the index set, then one script
   * removes every key of the poller key but the lease hash, and from that hash the lease but not
   * the epoch counter, so the next acquisition still gets a higher epoch than any lease issued
   * before. A failure part-way leaves the key listed or its data whole, never data that {@link
   * #listKeys} cannot find once written again.
   */
  @Override
  public void deleteKey(PollerKey key) {
    Objects.requireNonNull(key, "key");
    index.remove(key);
    scripts.expectOk(scripts.run(Scripts.DELETE_KEY, key, List.of()), Scripts.DELETE_KEY, key);
  }

  @Override
  public void clearItems(PollerKey key) {
    Objects.requireNonNull(key, "key");
    scripts.expectOk(scripts.run(Scripts.CLEAR_ITEMS, key, List.of()), Scripts.CLEAR_ITEMS, key);
  }

  // ---- items

  @Override
  public Map<String, ItemRow> loadVersions(PollerKey key, Collection<String> identities) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(identities, "identities");
    List<String> wanted = List.copyOf(new LinkedHashSet<>(identities));
    if (wanted.isEmpty()) {
      return Map.of();
    }
    Map<String, ItemRow> rows = new LinkedHashMap<>();
    for (int from = 0; from < wanted.size(); from += CHUNK) {
      List<String> chunk = wanted.subList(from, Math.min(wanted.size(), from + CHUNK));
      ScriptReplies.itemRows(scripts.run(Scripts.LOAD_VERSIONS, key, chunk), rows);
    }
    return Collections.unmodifiableMap(rows);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Pages the key's sorted set of identities by the last identity of the previous batch ({@code
   * ZRANGEBYLEX}), one script per batch when the stream asks for it; nothing stays open between
   * batches. Identities come in byte order of their UTF-8 form.
   *
   * @throws IllegalArgumentException when {@code batchSize < 1}
   */
  @Override
  public Stream<List<String>> streamIdentities(PollerKey key, int batchSize) {
    Objects.requireNonNull(key, "key");
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize must be at least 1, but was " + batchSize);
    }
    return StreamSupport.stream(
        Spliterators.spliteratorUnknownSize(
            new IdentityBatches(scripts, key, batchSize),
            Spliterator.ORDERED | Spliterator.NONNULL | Spliterator.IMMUTABLE),
        false);
  }

  @Override
  public long countItems(PollerKey key) {
    Objects.requireNonNull(key, "key");
    return scripts.count(Scripts.COUNT_ITEMS, key, List.of());
  }

  // ---- commit and outbox

  /**
   * {@inheritDoc}
   *
   * <p>One Lua script: lease check, a check that no event's sequence is already pending, then the
   * state patch, item upserts, item deletes, outbox rows, log rows and parked rows. An outbox
   * sequence that is already pending (or appears twice in the batch) fails the whole commit with a
   * {@link StoreException}, as overwriting it would lose an event; a log row or parked row with the
   * same sequence or id is replaced. Logged events carry {@code now} as their creation time.
   *
   * @throws IllegalArgumentException when an event has a negative sequence
   */
  @Override
  public void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(batch, "batch");
    Objects.requireNonNull(now, "now");
    Set<Long> sequences = new HashSet<>();
    for (OutboxRow e : batch.events()) {
      if (!sequences.add(e.sequence())) {
        throw new StoreException(
            scripts.describe("commitPoll", key)
                + " refused: outbox sequence "
                + e.sequence()
                + " appears twice in the batch; nothing was written",
            null);
      }
      member(e.sequence());
    }
    List<Object> reply = scripts.run(Scripts.COMMIT, key, ScriptArgs.commit(lease, batch, now));
    if ("SEQUENCE_TAKEN".equals(status(reply))) {
      throw new StoreException(
          scripts.describe("commitPoll", key)
              + " refused: outbox sequence "
              + Long.parseLong(text(reply, 1))
              + " is already pending; nothing was written",
          null);
    }
    scripts.fenced(reply, Scripts.COMMIT, key, lease);
    index.addIfNeeded(key, reply);
  }

  @Override
  public List<OutboxRow> loadPending(PollerKey key, long afterSequence, int limit) {
    Objects.requireNonNull(key, "key");
    requireLimit(limit);
    if (limit == 0) {
      return List.of();
    }
    List<String> args = List.of(ScriptArgs.after(afterSequence), Integer.toString(limit));
    return ScriptReplies.outboxRows(scripts.run(Scripts.LOAD_PENDING, key, args), key);
  }

  @Override
  public long countPending(PollerKey key) {
    Objects.requireNonNull(key, "key");
    return scripts.count(Scripts.COUNT_PENDING, key, List.of());
  }

  /** {@inheritDoc} Acknowledged rows are deleted; negative sequences are never stored. */
  @Override
  public void ackEvents(PollerKey key, Lease lease, Collection<Long> sequences) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(sequences, "sequences");
    List<String> args = ScriptArgs.ack(lease, sequences);
    scripts.fenced(scripts.run(Scripts.ACK, key, args), Scripts.ACK, key, lease);
  }

  /** {@inheritDoc} An unknown sequence is ignored. */
  @Override
  public void recordAttempt(
      PollerKey key,
      Lease lease,
      long sequence,
      String errorJson,
      @Nullable Instant nextAttemptAt) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(errorJson, "errorJson");
    List<String> args = ScriptArgs.recordAttempt(lease, sequence, errorJson, nextAttemptAt);
    scripts.fenced(
        scripts.run(Scripts.RECORD_ATTEMPT, key, args), Scripts.RECORD_ATTEMPT, key, lease);
  }

  /**
   * {@inheritDoc}
   *
   * <p>The outbox row's commit time is kept with the parked row, so {@link #retryParked} restores
   * it. A parked row with the same id is replaced (keeping the commit time it recorded when the
   * outbox no longer has the row), and the key it held is released.
   */
  @Override
  public void parkEvent(PollerKey key, Lease lease, ParkedRow row) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(row, "row");
    List<String> args = ScriptArgs.park(lease, row);
    scripts.fenced(scripts.run(Scripts.PARK, key, args), Scripts.PARK, key, lease);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Reads every parked row of the key and sorts them here: parked rows are few (they grow only
   * when things go wrong), and sorting in Java orders ids exactly as {@link String#compareTo}.
   */
  @Override
  public List<ParkedRow> listParked(PollerKey key, @Nullable ParkedKind kind, int limit) {
    Objects.requireNonNull(key, "key");
    requireLimit(limit);
    if (limit == 0) {
      return List.of();
    }
    List<ParkedRow> rows = new ArrayList<>();
    for (Parked parked :
        ScriptReplies.parkedRows(scripts.run(Scripts.LIST_PARKED, key, List.of()), key)) {
      if (kind == null || parked.row().kind() == kind) {
        rows.add(parked.row());
      }
    }
    rows.sort(Comparator.comparing(ParkedRow::parkedAt).thenComparing(ParkedRow::id));
    return List.copyOf(rows.subList(0, Math.min(limit, rows.size())));
  }

  @Override
  public long countParked(PollerKey key) {
    Objects.requireNonNull(key, "key");
    return scripts.count(Scripts.COUNT_PARKED, key, List.of());
  }

  /**
   * {@inheritDoc}
   *
   * <p>A poison event returns with zero attempts, no error and no next-attempt time, and with the
   * commit time it had in the outbox (its parking time when that is unknown). The rows are read,
   * checked and rebuilt here, then written by one script that applies only if no row changed in
   * between (it reads again otherwise, up to {@value ParkedRetry#ROUNDS} times). Unknown ids are
   * ignored.
   *
   * @throws StoreException when a parked poison row lacks its sequence, event id or envelope, so it
   *     cannot be re-queued; nothing is changed
   */
  @Override
  public int retryParked(PollerKey key, Collection<String> ids) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ids, "ids");
    List<String> wanted = List.copyOf(new LinkedHashSet<>(ids));
    if (wanted.isEmpty()) {
      return 0;
    }
    return ParkedRetry.retry(scripts, key, wanted);
  }

  /** {@inheritDoc} Unknown ids are ignored. */
  @Override
  public int discardParked(PollerKey key, Collection<String> ids) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ids, "ids");
    List<String> wanted = List.copyOf(new LinkedHashSet<>(ids));
    if (wanted.isEmpty()) {
      return 0;
    }
    return (int) scripts.count(Scripts.DISCARD, key, wanted);
  }

  @Override
  public Set<String> heldKeys(PollerKey key) {
    Objects.requireNonNull(key, "key");
    return Set.copyOf(ScriptReplies.texts(scripts.run(Scripts.HELD_KEYS, key, List.of())));
  }

  // ---- HTTP validators

  @Override
  public Optional<HttpValidator> getValidator(PollerKey key, String urlHash) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(urlHash, "urlHash");
    List<Object> reply = scripts.run(Scripts.GET_VALIDATOR, key, List.of(urlHash));
    if (reply.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(RowCodec.decodeValidator(key, text(reply, 0)));
  }

  @Override
  public void setValidator(PollerKey key, Lease lease, String urlHash, HttpValidator validator) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(urlHash, "urlHash");
    Objects.requireNonNull(validator, "validator");
    List<String> args = ScriptArgs.setValidator(lease, urlHash, validator);
    scripts.fenced(
        scripts.run(Scripts.SET_VALIDATOR, key, args), Scripts.SET_VALIDATOR, key, lease);
  }

  // ---- replay log

  /**
   * {@inheritDoc}
   *
   * <p>One script walks the key's log in sequence order and filters by creation time, so a narrow
   * time range over a long log reads the whole log inside Redis.
   */
  @Override
  public List<LoggedEvent> readLog(PollerKey key, LogRange range, int limit) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(range, "range");
    requireLimit(limit);
    if (limit == 0) {
      return List.of();
    }
    return ScriptReplies.loggedEvents(
        scripts.run(Scripts.READ_LOG, key, ScriptArgs.readLog(range, limit)), key);
  }

  @Override
  public int pruneLog(PollerKey key, Instant olderThan) {
    return effects.pruneLog(key, olderThan);
  }

  // CPD-OFF: what follows forwards the CredentialStore methods, one line each, to the class that
  // keeps the credentials table; every store has the interface's shape, which is no copy.
  // ---- credentials

  /** {@inheritDoc} One {@code HGET} in a script. */
  @Override
  public Optional<StoredCredential> loadCredential(String name) {
    return credentials.load(name);
  }

  /**
   * {@inheritDoc} One script: compares the stored version's digits with {@code expectedVersion}
   * (none stored for 0) and writes the whole row with one {@code HSET}.
   */
  @Override
  public boolean compareAndSetCredential(long expectedVersion, StoredCredential next) {
    return credentials.compareAndSet(expectedVersion, next);
  }

  @Override
  public boolean deleteCredential(String name) {
    return credentials.delete(name);
  }

  /** {@inheritDoc} {@code HKEYS}, sorted in Java ({@link String#compareTo}). */
  @Override
  public List<String> listCredentials() {
    return credentials.list();
  }

  // CPD-ON

  // ---- effects

  /** {@inheritDoc} Kept in the same Redis as the log, under the same prefix. */
  @Override
  public Optional<EffectStore> effects() {
    return Optional.of(effects);
  }

  private static void requireLimit(int limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("limit must not be negative, but was " + limit);
    }
  }
}
