package io.watukuy.store.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.watukuy.ConfigException;
import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.StoreException;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.HttpValidator;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StateCodec;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.StateStore;
import io.watukuy.spi.StoreCapabilities;
import io.watukuy.store.redis.Scripts.Script;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link StateStore} on Redis (Stores document, "RedisStore and RedisBudgetStore"), reached
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
public final class RedisStore implements StateStore {

  /** Default of {@link Builder#prefix(String)}. */
  public static final String DEFAULT_PREFIX = "watukuy:";

  private static final Logger log = LoggerFactory.getLogger(RedisStore.class);

  /** Identities per script in loadVersions: keeps each script short. */
  private static final int CHUNK = 500;

  /** How often retryParked re-reads rows that changed between its read and its write. */
  private static final int RETRY_ROUNDS = 10;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<Map<String, String>> CURSORS = new TypeReference<>() {};

  /** State fields a new key starts with, as field, value pairs: the defaults of the core. */
  private static final List<String> STATE_DEFAULTS = stateFields(defaultPatch());

  private final RedisLike redis;
  private final KeyLayout layout;
  private volatile boolean closed;

  private RedisStore(RedisLike redis, KeyLayout layout) {
    this.redis = redis;
    this.layout = layout;
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

  @Override
  public String toString() {
    return "RedisStore[" + redis.endpoint() + ", prefix=" + layout.prefix() + "]";
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
    checkOpen();
  }

  /** Marks the store closed. Idempotent. Never closes the connection; leases are not released. */
  @Override
  public void close() {
    closed = true;
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
        run(
            Scripts.ACQUIRE,
            key,
            List.of(owner, Long.toString(now.toEpochMilli()), Long.toString(expiresMs)));
    if ("HELD".equals(status(reply))) {
      return Optional.empty();
    }
    expectOk(reply, Scripts.ACQUIRE, key);
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
        run(
            Scripts.RENEW,
            key,
            List.of(lease.owner(), Long.toString(lease.epoch()), Long.toString(expiresMs)));
    if ("LOST".equals(status(reply))) {
      return Optional.empty();
    }
    expectOk(reply, Scripts.RENEW, key);
    return Optional.of(new Lease(lease.owner(), lease.epoch(), Instant.ofEpochMilli(expiresMs)));
  }

  @Override
  public void releaseLease(PollerKey key, Lease lease) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    expectOk(
        run(Scripts.RELEASE, key, List.of(lease.owner(), Long.toString(lease.epoch()))),
        Scripts.RELEASE,
        key);
  }

  @Override
  public Optional<Lease> getLease(PollerKey key) {
    Objects.requireNonNull(key, "key");
    List<Object> reply = run(Scripts.GET_LEASE, key, List.of());
    if (reply.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new Lease(
            text(reply, 0),
            parseLong(text(reply, 1), "lease epoch", key),
            Instant.ofEpochMilli(parseLong(text(reply, 2), "lease expiry", key))));
  }

  // ---- state

  @Override
  public Optional<PollerState> loadState(PollerKey key) {
    Objects.requireNonNull(key, "key");
    List<Object> reply = run(Scripts.LOAD_STATE, key, List.of());
    if (reply.isEmpty()) {
      return Optional.empty();
    }
    Map<String, String> fields = new HashMap<>();
    for (int i = 0; i + 1 < reply.size(); i += 2) {
      fields.put(text(reply, i), text(reply, i + 1));
    }
    return Optional.of(decodeState(key, fields));
  }

  @Override
  public void saveState(PollerKey key, Lease lease, StatePatch patch, Instant now) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(patch, "patch");
    Objects.requireNonNull(now, "now");
    List<String> args = new ArrayList<>(leaseArgs(lease));
    addStateArgs(args, patch, now);
    List<Object> reply = run(Scripts.SAVE_STATE, key, args);
    fenced(reply, Scripts.SAVE_STATE, key, lease);
    indexIfNeeded(key, reply);
  }

  @Override
  public void saveStateUnfenced(PollerKey key, StatePatch patch, Instant now) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(patch, "patch");
    Objects.requireNonNull(now, "now");
    List<String> args = new ArrayList<>();
    addStateArgs(args, patch, now);
    List<Object> reply = run(Scripts.SAVE_STATE_UNFENCED, key, args);
    expectOk(reply, Scripts.SAVE_STATE_UNFENCED, key);
    indexIfNeeded(key, reply);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Reads the index set {@code <prefix>keys}, then checks for each listed key that its state
   * still exists (one short script per key, so a cluster client routes each to its slot).
   */
  @Override
  public List<PollerKey> listKeys(@Nullable String poller) {
    List<Object> tags =
        run(Scripts.INDEX_MEMBERS, "listKeys", null, List.of(layout.index()), List.of());
    List<PollerKey> keys = new ArrayList<>();
    for (int i = 0; i < tags.size(); i++) {
      PollerKey key = KeyLayout.parseTag(text(tags, i));
      if (poller != null && !poller.equals(key.poller())) {
        continue;
      }
      List<Object> exists = run(Scripts.STATE_EXISTS, key, List.of());
      if (number(exists, 0, Scripts.STATE_EXISTS, key) == 1) {
        keys.add(key);
      }
    }
    Collections.sort(keys);
    return List.copyOf(keys);
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
    expectOk(run(Scripts.UNMARK_INDEXED, key, List.of()), Scripts.UNMARK_INDEXED, key);
    run(Scripts.INDEX_REMOVE, "deleteKey", key, List.of(layout.index()), List.of(tag(key)));
    expectOk(run(Scripts.DELETE_KEY, key, List.of()), Scripts.DELETE_KEY, key);
  }

  @Override
  public void clearItems(PollerKey key) {
    Objects.requireNonNull(key, "key");
    expectOk(run(Scripts.CLEAR_ITEMS, key, List.of()), Scripts.CLEAR_ITEMS, key);
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
      List<Object> reply = run(Scripts.LOAD_VERSIONS, key, chunk);
      for (int i = 0; i + 1 < reply.size(); i += 2) {
        String identity = text(reply, i);
        rows.put(identity, decodeItem(identity, text(reply, i + 1)));
      }
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
    Iterator<List<String>> batches = new IdentityBatches(key, batchSize);
    return StreamSupport.stream(
        Spliterators.spliteratorUnknownSize(
            batches, Spliterator.ORDERED | Spliterator.NONNULL | Spliterator.IMMUTABLE),
        false);
  }

  /** Keyset pagination over the identities of one key. Not thread-safe, like any iterator. */
  private final class IdentityBatches implements Iterator<List<String>> {
    private final PollerKey key;
    private final int batchSize;
    private String start = "-";
    private @Nullable List<String> next;
    private boolean exhausted;

    IdentityBatches(PollerKey key, int batchSize) {
      this.key = key;
      this.batchSize = batchSize;
    }

    @Override
    public boolean hasNext() {
      if (next == null && !exhausted) {
        List<Object> reply =
            run(Scripts.STREAM_IDENTITIES, key, List.of(start, Integer.toString(batchSize)));
        List<String> batch = new ArrayList<>(reply.size());
        for (int i = 0; i < reply.size(); i++) {
          batch.add(text(reply, i));
        }
        // A short batch is the last one; stopping here saves a call that would find nothing.
        exhausted = batch.size() < batchSize;
        if (!batch.isEmpty()) {
          next = List.copyOf(batch);
          start = "(" + batch.get(batch.size() - 1);
        }
      }
      return next != null;
    }

    @Override
    public List<String> next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      List<String> batch = Objects.requireNonNull(next);
      next = null;
      return batch;
    }
  }

  @Override
  public long countItems(PollerKey key) {
    Objects.requireNonNull(key, "key");
    return number(run(Scripts.COUNT_ITEMS, key, List.of()), 0, Scripts.COUNT_ITEMS, key);
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
            describe("commitPoll", key)
                + " refused: outbox sequence "
                + e.sequence()
                + " appears twice in the batch; nothing was written",
            null);
      }
      member(e.sequence());
    }
    List<String> args = new ArrayList<>(leaseArgs(lease));
    addStateArgs(args, batch.statePatch(), now);
    args.add(Long.toString(now.toEpochMilli()));
    args.add(batch.log() ? "1" : "0");
    args.add(Integer.toString(batch.upserts().size()));
    for (ItemRow row : batch.upserts()) {
      args.add(row.identity());
      args.add(encodeItem(row));
    }
    args.add(Integer.toString(batch.deletes().size()));
    args.addAll(batch.deletes());
    args.add(Integer.toString(batch.events().size()));
    for (OutboxRow row : batch.events()) {
      args.add(member(row.sequence()));
      args.add(encodeOutbox(row.createdAt(), row.eventId(), row.orderingKey(), row.event()));
    }
    args.add(Integer.toString(batch.parked().size()));
    for (ParkedRow row : batch.parked()) {
      args.add(row.id());
      args.add(encodeParked(row));
      args.add(holdArg(row));
    }
    List<Object> reply = run(Scripts.COMMIT, key, args);
    if ("SEQUENCE_TAKEN".equals(status(reply))) {
      throw new StoreException(
          describe("commitPoll", key)
              + " refused: outbox sequence "
              + Long.parseLong(text(reply, 1))
              + " is already pending; nothing was written",
          null);
    }
    fenced(reply, Scripts.COMMIT, key, lease);
    indexIfNeeded(key, reply);
  }

  @Override
  public List<OutboxRow> loadPending(PollerKey key, long afterSequence, int limit) {
    Objects.requireNonNull(key, "key");
    requireLimit(limit);
    if (limit == 0) {
      return List.of();
    }
    String start = afterSequence < 0 ? "-" : "(" + member(afterSequence);
    List<Object> reply = run(Scripts.LOAD_PENDING, key, List.of(start, Integer.toString(limit)));
    List<OutboxRow> rows = new ArrayList<>(reply.size() / 4);
    for (int i = 0; i + 3 < reply.size(); i += 4) {
      long sequence = parseLong(text(reply, i), "outbox sequence", key);
      @Nullable String[] row = Fields.decode(text(reply, i + 1), 4, "outbox row of " + key);
      int attempts = (int) parseLong(text(reply, i + 2), "outbox attempts", key);
      String errors = text(reply, i + 3);
      Instant nextAttemptAt = null;
      String lastError = null;
      if (!errors.isEmpty()) {
        @Nullable String[] e = Fields.decode(errors, 2, "outbox error of " + key);
        nextAttemptAt = e[0] == null ? null : instant(e[0], "next attempt", key);
        lastError = e[1];
      }
      rows.add(
          new OutboxRow(
              sequence,
              required(row[1], "event id", key),
              required(row[2], "ordering key", key),
              required(row[3], "event", key),
              attempts,
              nextAttemptAt,
              lastError,
              instant(required(row[0], "created at", key), "created at", key)));
    }
    return List.copyOf(rows);
  }

  @Override
  public long countPending(PollerKey key) {
    Objects.requireNonNull(key, "key");
    return number(run(Scripts.COUNT_PENDING, key, List.of()), 0, Scripts.COUNT_PENDING, key);
  }

  /** {@inheritDoc} Acknowledged rows are deleted; negative sequences are never stored. */
  @Override
  public void ackEvents(PollerKey key, Lease lease, Collection<Long> sequences) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(sequences, "sequences");
    List<String> members = new ArrayList<>();
    for (long seq : new LinkedHashSet<>(sequences)) {
      if (seq >= 0) {
        members.add(member(seq));
      }
    }
    List<String> args = new ArrayList<>(leaseArgs(lease));
    args.add(Integer.toString(members.size()));
    args.addAll(members);
    fenced(run(Scripts.ACK, key, args), Scripts.ACK, key, lease);
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
    List<String> args = new ArrayList<>(leaseArgs(lease));
    // A negative sequence is never stored: an empty member matches no row, yet the lease is
    // checked.
    args.add(sequence < 0 ? "" : member(sequence));
    args.add(Fields.encode(millis(nextAttemptAt), errorJson));
    fenced(run(Scripts.RECORD_ATTEMPT, key, args), Scripts.RECORD_ATTEMPT, key, lease);
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
    Long seq = row.sequence();
    List<String> args = new ArrayList<>(leaseArgs(lease));
    args.add(seq == null || seq < 0 ? "" : member(seq));
    args.add(row.id());
    args.add(encodeParked(row));
    args.add(holdArg(row));
    fenced(run(Scripts.PARK, key, args), Scripts.PARK, key, lease);
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
    List<Object> reply = run(Scripts.LIST_PARKED, key, List.of());
    List<ParkedRow> rows = new ArrayList<>(reply.size() / 2);
    for (int i = 0; i + 1 < reply.size(); i += 2) {
      ParkedRow row = decodeParked(key, text(reply, i), text(reply, i + 1)).row();
      if (kind == null || row.kind() == kind) {
        rows.add(row);
      }
    }
    rows.sort(Comparator.comparing(ParkedRow::parkedAt).thenComparing(ParkedRow::id));
    return List.copyOf(rows.subList(0, Math.min(limit, rows.size())));
  }

  @Override
  public long countParked(PollerKey key) {
    Objects.requireNonNull(key, "key");
    return number(run(Scripts.COUNT_PARKED, key, List.of()), 0, Scripts.COUNT_PARKED, key);
  }

  /**
   * {@inheritDoc}
   *
   * <p>A poison event returns with zero attempts, no error and no next-attempt time, and with the
   * commit time it had in the outbox (its parking time when that is unknown). The rows are read,
   * checked and rebuilt here, then written by one script that applies only if no row changed in
   * between (it reads again otherwise, up to 10 times). Unknown ids are ignored.
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
    for (int round = 0; round < RETRY_ROUNDS; round++) {
      List<Object> found = run(Scripts.READ_PARKED, key, wanted);
      if (found.isEmpty()) {
        return 0;
      }
      List<String> args = new ArrayList<>();
      args.add(Integer.toString(found.size() / 2));
      for (int i = 0; i + 1 < found.size(); i += 2) {
        String id = text(found, i);
        String stored = text(found, i + 1);
        Parked parked = decodeParked(key, id, stored);
        ParkedRow row = parked.row();
        args.add(id);
        args.add(stored);
        if (row.kind() == ParkedKind.POISON) {
          Long seq = row.sequence();
          String eventId = row.eventId();
          String event = row.event();
          if (seq == null || seq < 0 || eventId == null || event == null) {
            // Dropping it would lose the event for good; refuse the whole retry instead.
            throw new StoreException(
                describe("retryParked", key)
                    + " refused: parked poison row "
                    + id
                    + " has no sequence, event id or event to put back; nothing was changed",
                null);
          }
          Instant createdAt = parked.createdAt() != null ? parked.createdAt() : row.parkedAt();
          args.add(member(seq));
          args.add(encodeOutbox(createdAt, eventId, row.orderingKey(), event));
        } else {
          args.add("");
          args.add("");
        }
      }
      List<Object> reply = run(Scripts.RETRY, key, args);
      if (!"CHANGED".equals(status(reply))) {
        expectOk(reply, Scripts.RETRY, key);
        return found.size() / 2;
      }
    }
    throw new StoreException(
        describe("retryParked", key)
            + " failed: the parked rows changed "
            + RETRY_ROUNDS
            + " times while being retried; nothing was changed, try again",
        null);
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
    return (int) number(run(Scripts.DISCARD, key, wanted), 0, Scripts.DISCARD, key);
  }

  @Override
  public Set<String> heldKeys(PollerKey key) {
    Objects.requireNonNull(key, "key");
    List<Object> reply = run(Scripts.HELD_KEYS, key, List.of());
    Set<String> held = new HashSet<>();
    for (int i = 0; i < reply.size(); i++) {
      held.add(text(reply, i));
    }
    return Set.copyOf(held);
  }

  // ---- HTTP validators

  @Override
  public Optional<HttpValidator> getValidator(PollerKey key, String urlHash) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(urlHash, "urlHash");
    List<Object> reply = run(Scripts.GET_VALIDATOR, key, List.of(urlHash));
    if (reply.isEmpty()) {
      return Optional.empty();
    }
    @Nullable String[] f = Fields.decode(text(reply, 0), 3, "validator of " + key);
    return Optional.of(
        new HttpValidator(f[0], f[1], instant(required(f[2], "stored at", key), "stored at", key)));
  }

  @Override
  public void setValidator(PollerKey key, Lease lease, String urlHash, HttpValidator validator) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(urlHash, "urlHash");
    Objects.requireNonNull(validator, "validator");
    List<String> args = new ArrayList<>(leaseArgs(lease));
    args.add(urlHash);
    args.add(
        Fields.encode(validator.etag(), validator.lastModified(), millis(validator.storedAt())));
    fenced(run(Scripts.SET_VALIDATOR, key, args), Scripts.SET_VALIDATOR, key, lease);
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
    Long after = range.afterSequence();
    String start = after == null || after < 0 ? "-" : "(" + member(after);
    String from = range.fromTime() == null ? "" : millis(range.fromTime());
    String to = range.toTime() == null ? "" : millis(range.toTime());
    List<Object> reply =
        run(Scripts.READ_LOG, key, List.of(start, Integer.toString(limit), from, to));
    List<LoggedEvent> events = new ArrayList<>(reply.size() / 3);
    for (int i = 0; i + 2 < reply.size(); i += 3) {
      long sequence = parseLong(text(reply, i), "log sequence", key);
      Instant createdAt = Instant.ofEpochMilli(score(text(reply, i + 1), key));
      @Nullable String[] row = Fields.decode(text(reply, i + 2), 4, "log row of " + key);
      events.add(new LoggedEvent(sequence, required(row[3], "event", key), createdAt));
    }
    return List.copyOf(events);
  }

  @Override
  public int pruneLog(PollerKey key, Instant olderThan) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(olderThan, "olderThan");
    return (int)
        number(run(Scripts.PRUNE_LOG, key, List.of(millis(olderThan))), 0, Scripts.PRUNE_LOG, key);
  }

  // ---- rows

  private static String encodeItem(ItemRow row) {
    return Fields.encode(
        row.version(),
        row.hash(),
        Integer.toString(row.schemaVersion()),
        row.payload(),
        row.orderingKey(),
        millis(row.seenAt()));
  }

  private static ItemRow decodeItem(String identity, String text) {
    @Nullable String[] f = Fields.decode(text, 6, "item row " + identity);
    try {
      return new ItemRow(
          identity,
          f[0],
          Objects.requireNonNull(f[1]),
          Integer.parseInt(Objects.requireNonNull(f[2])),
          f[3],
          Objects.requireNonNull(f[4]),
          Instant.ofEpochMilli(Long.parseLong(Objects.requireNonNull(f[5]))));
    } catch (RuntimeException e) {
      throw new StoreException("redis store: stored item row " + identity + " is not readable", e);
    }
  }

  private static String encodeOutbox(
      Instant createdAt, String eventId, String orderingKey, String event) {
    return Fields.encode(millis(createdAt), eventId, orderingKey, event);
  }

  /** The parked row without its first field (the outbox commit time), which the script adds. */
  private static String encodeParked(ParkedRow row) {
    Long seq = row.sequence();
    return Fields.encode(
        row.kind().wire(),
        seq == null ? null : Long.toString(seq),
        row.eventId(),
        row.orderingKey(),
        row.event(),
        row.item(),
        row.error(),
        Integer.toString(row.attempts()),
        millis(row.parkedAt()),
        row.holdKey());
  }

  /** A stored parked row and the commit time its event had in the outbox, when known. */
  private record Parked(ParkedRow row, @Nullable Instant createdAt) {}

  private static Parked decodeParked(PollerKey key, String id, String text) {
    @Nullable String[] f = Fields.decode(text, 11, "parked row " + id + " of " + key);
    try {
      ParkedRow row =
          new ParkedRow(
              id,
              ParkedKind.fromWire(Objects.requireNonNull(f[1])),
              f[2] == null ? null : Long.valueOf(f[2]),
              f[3],
              Objects.requireNonNull(f[4]),
              f[5],
              f[6],
              Objects.requireNonNull(f[7]),
              Integer.parseInt(Objects.requireNonNull(f[8])),
              Instant.ofEpochMilli(Long.parseLong(Objects.requireNonNull(f[9]))),
              f[10]);
      return new Parked(row, f[0] == null ? null : Instant.ofEpochMilli(Long.parseLong(f[0])));
    } catch (RuntimeException e) {
      throw new StoreException(
          "redis store: stored parked row " + id + " of " + key + " is not readable", e);
    }
  }

  private static String holdArg(ParkedRow row) {
    String hold = row.holdKey();
    return hold == null ? "" : "+" + hold;
  }

  // ---- state fields

  private static StatePatch defaultPatch() {
    PollerState initial = PollerState.create(StatePatch.NONE, Instant.EPOCH);
    return new StatePatch(
        initial.cursors(), initial.schedule(), initial.schemaVersion(), initial.lastSequence());
  }

  /** The non-null fields of {@code patch} as field, value pairs of the state hash. */
  private static List<String> stateFields(StatePatch patch) {
    List<String> out = new ArrayList<>(8);
    Map<String, String> cursors = patch.cursors();
    if (cursors != null) {
      out.add("cursors");
      try {
        out.add(JSON.writeValueAsString(new TreeMap<>(cursors)));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("a map of strings is always JSON", e);
      }
    }
    ScheduleState schedule = patch.schedule();
    if (schedule != null) {
      out.add("schedule");
      out.add(StateCodec.scheduleToJson(schedule));
    }
    Integer schemaVersion = patch.schemaVersion();
    if (schemaVersion != null) {
      out.add("schemaVersion");
      out.add(Integer.toString(schemaVersion));
    }
    Long lastSequence = patch.lastSequence();
    if (lastSequence != null) {
      out.add("lastSequence");
      out.add(Long.toString(lastSequence));
    }
    return out;
  }

  private static void addStateArgs(List<String> args, StatePatch patch, Instant now) {
    args.add(now.toString());
    args.add(Integer.toString(STATE_DEFAULTS.size()));
    args.addAll(STATE_DEFAULTS);
    List<String> fields = stateFields(patch);
    args.add(Integer.toString(fields.size()));
    args.addAll(fields);
  }

  private static PollerState decodeState(PollerKey key, Map<String, String> f) {
    try {
      String cursors = f.get("cursors");
      String schedule = f.get("schedule");
      String schemaVersion = f.get("schemaVersion");
      String lastSequence = f.get("lastSequence");
      return new PollerState(
          cursors == null ? Map.of() : JSON.readValue(cursors, CURSORS),
          schedule == null ? ScheduleState.initial(0) : StateCodec.scheduleFromJson(schedule),
          schemaVersion == null ? 1 : Integer.parseInt(schemaVersion),
          lastSequence == null ? 0 : Long.parseLong(lastSequence),
          Instant.parse(Objects.requireNonNull(f.get("createdAt"), "createdAt")),
          Instant.parse(Objects.requireNonNull(f.get("updatedAt"), "updatedAt")));
    } catch (JsonProcessingException | RuntimeException e) {
      throw new StoreException(
          "redis store: stored poller state of " + key + " is not readable: " + e.getMessage(), e);
    }
  }

  // ---- the index of keys with state

  /**
   * Adds the key to the index when a state write reported it unmarked, then marks it. A failure
   * here is logged, not thrown: the write itself succeeded, and the next state write of the key
   * tries again because the mark is still missing.
   */
  private void indexIfNeeded(PollerKey key, List<Object> reply) {
    if (reply.size() < 2 || !"1".equals(reply.get(1))) {
      return;
    }
    try {
      run(Scripts.INDEX_ADD, "index", key, List.of(layout.index()), List.of(tag(key)));
      run(Scripts.MARK_INDEXED, key, List.of());
    } catch (StoreException e) {
      log.warn("{}: the key was written but not yet listed; the next write lists it", this, e);
    }
  }

  private static String tag(PollerKey key) {
    return KeyLayout.tag(key);
  }

  // ---- running scripts

  private List<Object> run(Script script, PollerKey key, List<String> args) {
    return run(script, script.name(), key, layout.keys(key), args);
  }

  @SuppressWarnings("unchecked")
  private List<Object> run(
      Script script, String op, @Nullable PollerKey key, List<String> keys, List<String> args) {
    checkOpen();
    Object reply;
    try {
      try {
        reply = redis.evalsha(script.sha1(), keys, args);
      } catch (RedisLike.NoScriptException e) {
        // A restarted server or SCRIPT FLUSH forgot the script: EVAL sends and caches it.
        reply = redis.eval(script.source(), keys, args);
      }
    } catch (StoreException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new StoreException(
          describe(op, key) + " failed: " + (e.getMessage() != null ? e.getMessage() : e), e);
    }
    if (!(reply instanceof List<?>)) {
      throw new StoreException(
          describe(op, key) + " failed: the script replied " + reply + ", not an array", null);
    }
    return (List<Object>) reply;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException(this + " is closed");
    }
  }

  private String describe(String op, @Nullable PollerKey key) {
    return "redis store "
        + redis.endpoint()
        + " (prefix "
        + layout.prefix()
        + "): "
        + op
        + (key == null ? "" : " " + key);
  }

  private static List<String> leaseArgs(Lease lease) {
    return List.of(lease.owner(), Long.toString(lease.epoch()));
  }

  /** Throws what a fenced script's reply says went wrong, if anything. */
  private void fenced(List<Object> reply, Script script, PollerKey key, Lease lease) {
    if ("LEASE_LOST".equals(status(reply))) {
      String current = text(reply, 1);
      throw new LeaseLostException(
          key, lease.epoch(), current.isEmpty() ? null : parseLong(current, "lease epoch", key));
    }
    expectOk(reply, script, key);
  }

  private void expectOk(List<Object> reply, Script script, PollerKey key) {
    if (!"OK".equals(status(reply))) {
      throw new StoreException(
          describe(script.name(), key) + " failed: unexpected reply " + reply, null);
    }
  }

  private static @Nullable Object status(List<Object> reply) {
    return reply.isEmpty() ? null : reply.get(0);
  }

  private static String text(List<Object> reply, int index) {
    Object o = index < reply.size() ? reply.get(index) : null;
    if (o instanceof String s) {
      return s;
    }
    if (o instanceof Long || o instanceof Integer) {
      return o.toString();
    }
    throw new StoreException(
        "redis store: expected a string at " + index + " of the reply, but got " + o, null);
  }

  private long number(List<Object> reply, int index, Script script, PollerKey key) {
    Object o = index < reply.size() ? reply.get(index) : null;
    if (o instanceof Long l) {
      return l;
    }
    if (o instanceof String s) {
      return parseLong(s, script.name(), key);
    }
    throw new StoreException(
        describe(script.name(), key) + " failed: expected a number, but got " + o, null);
  }

  private static long parseLong(String s, String what, PollerKey key) {
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw new StoreException(
          "redis store: stored " + what + " of " + key + " is not a number: '" + s + "'", e);
    }
  }

  /** A sorted-set score as Redis prints it (an integer, or a double in exponent form). */
  private static long score(String s, PollerKey key) {
    try {
      return new BigDecimal(s).longValue();
    } catch (NumberFormatException e) {
      throw new StoreException(
          "redis store: stored log time of " + key + " is not a number: '" + s + "'", e);
    }
  }

  private static Instant instant(String ms, String what, PollerKey key) {
    return Instant.ofEpochMilli(parseLong(ms, what, key));
  }

  private static String required(@Nullable String value, String what, PollerKey key) {
    if (value == null) {
      throw new StoreException("redis store: stored " + what + " of " + key + " is missing", null);
    }
    return value;
  }

  private static @Nullable String millis(@Nullable Instant at) {
    return at == null ? null : Long.toString(at.toEpochMilli());
  }

  /**
   * A sequence as a sorted-set member: 19 zero-padded digits, so byte order is numeric order for
   * every non-negative {@code long}.
   */
  static String member(long sequence) {
    if (sequence < 0) {
      throw new IllegalArgumentException(
          "outbox sequence must not be negative, but was " + sequence);
    }
    String digits = Long.toString(sequence);
    return "0".repeat(19 - digits.length()) + digits;
  }

  private static void requireLimit(int limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("limit must not be negative, but was " + limit);
    }
  }
}
