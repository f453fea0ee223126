package io.watukuy;

import io.watukuy.internal.cursor.LaneCursors;
import io.watukuy.spi.ParkedKind;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A declared poller: what to fetch, how to identify and version items, which cursor strategy
 * remembers progress, and how events are delivered. Immutable and thread-safe; build with {@link
 * #builder(String, Class)}:
 *
 * <pre>{@code
 * Poller<Order> orders = Poller.builder("orders", Order.class)
 *     .identity(Order::id)
 *     .version(Order::updatedAt)
 *     .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
 *     .fetch(ctx -> Page.of(api.ordersSince(ctx.cursor())))
 *     .build();
 * }</pre>
 *
 * @param <T> the item type; items may also stay {@link com.fasterxml.jackson.databind.JsonNode}
 * @since 0.1
 */
public final class Poller<T> {
  /** Default page cap per cycle (docs/architecture.md, "Defaults"). */
  public static final int DEFAULT_MAX_PAGES_PER_CYCLE = 50;

  /** Default page cap of a full listing: a cut one emits no deletes, so it must complete. */
  public static final int DEFAULT_MAX_PAGES_PER_LISTING = 10_000;

  /**
   * Default {@link #maxItemSize()}: 4 MiB of compact JSON (docs/config.md, "maxItemSize"). An item
   * is held several times while it is diffed, stored and delivered; 4 MiB is far above any real
   * record and keeps those copies small.
   */
  public static final long DEFAULT_MAX_ITEM_SIZE = 4L * 1024 * 1024;

  /** Default schema version. */
  public static final int DEFAULT_SCHEMA_VERSION = 1;

  /**
   * Default {@link #weight()} in a shared rate budget (docs/architecture.md, "Defaults"): one turn
   * per round.
   */
  public static final int DEFAULT_WEIGHT = 1;

  /** Largest {@link #weight()}. */
  public static final int MAX_WEIGHT = 1000;

  /**
   * {@link #staleAfter()} by default is this many times the schedule's {@link Schedule#max()}: a
   * key that backs off to its longest interval still polls three times before it counts as stale.
   */
  public static final int DEFAULT_STALE_AFTER_MAX_INTERVALS = 3;

  private final PollerSpec<T> spec;

  private Poller(Builder<T, ?> b) {
    this.spec = b.spec.complete();
  }

  /**
   * Why a partition name is not valid: it must be non-empty ({@code ""} is the key of an
   * unpartitioned poller) and free of control characters.
   *
   * @param partition the name to check; not null
   * @return the problem, phrased to follow the name in a message, or {@code null} when valid
   */
  public static @Nullable String partitionProblem(String partition) {
    return PollerSpec.partitionProblem(partition);
  }

  /**
   * Starts a poller declaration.
   *
   * @param name unique among the engine's pollers: letters, digits, {@code _ . : -}, at most 100
   *     characters, starting with a letter or digit
   * @param type the item type ({@code JsonNode.class} to keep items as JSON trees); events are
   *     converted back to it for the handler
   * @param <T> the item type
   * @return a builder with every default (docs/architecture.md, "Defaults"); identity, cursor and
   *     fetch still to set
   * @throws NullPointerException if {@code name} or {@code type} is null
   * @throws ConfigException if the name is not valid
   */
  public static <T> Builder<T, Void> builder(String name, Class<T> type) {
    Objects.requireNonNull(type, "type");
    return new Builder<>(PollerSpec.checkName(name), type);
  }

  /**
   * The poller name: the {@code source} of its events and part of every key and event id.
   *
   * @return the name given to {@link #builder(String, Class)}
   */
  public String name() {
    return spec.name;
  }

  /** The item type given to {@link #builder(String, Class)}; events are converted to it. */
  public Class<T> type() {
    return spec.type;
  }

  /** The item's identity function, as set with {@link Builder#identity}. */
  public Function<? super T, ?> identity() {
    return spec.identity;
  }

  /**
   * The item's version function.
   *
   * @return the function set with {@link Builder#version}, or {@code null}: items are compared by
   *     hash
   */
  public @Nullable Function<? super T, ?> version() {
    return spec.version;
  }

  /**
   * The projection that is hashed instead of the whole item.
   *
   * @return the function set with {@link Builder#fingerprint}, or {@code null} to hash the whole
   *     item
   */
  public @Nullable Function<? super T, ?> fingerprint() {
    return spec.fingerprint;
  }

  /** The predicate set with {@link Builder#tombstone}, or {@code null} for none. */
  public @Nullable Predicate<? super T> tombstone() {
    return spec.tombstone;
  }

  /**
   * The ordering-key function.
   *
   * @return the function set with {@link Builder#orderingKey}, or {@code null} for the default (the
   *     identity)
   */
  public @Nullable Function<? super T, String> orderingKey() {
    return spec.orderingKey;
  }

  /** The cursor strategy, as set with {@link Builder#cursor}. */
  public CursorStrategy<?> cursor() {
    return spec.cursor;
  }

  /** The fetch function, as set with {@link Builder#fetch}. */
  public Fetcher<T, ?> fetch() {
    return spec.fetch;
  }

  /** When the live lane runs; default {@link Schedule#DEFAULT}. */
  public Schedule schedule() {
    return spec.schedule;
  }

  /**
   * The page cap per cycle of an incremental lane (timestamp, token, page, custom; backfill).
   *
   * @return as set, else {@value #DEFAULT_MAX_PAGES_PER_CYCLE}
   */
  public int maxPagesPerCycle() {
    return spec.maxPagesPerCycle != null ? spec.maxPagesPerCycle : DEFAULT_MAX_PAGES_PER_CYCLE;
  }

  /** The delete guard's ratio ({@link Builder#deleteGuard}): in (0, 1], default 0.5. */
  public double deleteGuardMaxRatio() {
    return spec.deleteGuardMaxRatio;
  }

  /** The delete guard's count ({@link Builder#deleteGuard}): at least 0, default 10. */
  public int deleteGuardMinCount() {
    return spec.deleteGuardMinCount;
  }

  /**
   * The page cap of a full listing (snapshotDiff's live lane, the reconcile lane).
   *
   * @return as set, else {@value #DEFAULT_MAX_PAGES_PER_LISTING}
   */
  public int maxPagesPerListing() {
    return spec.maxPagesPerCycle != null ? spec.maxPagesPerCycle : DEFAULT_MAX_PAGES_PER_LISTING;
  }

  /** What the item snapshot keeps per item: {@link Retain#HASH} (default) or PAYLOAD. */
  public Retain retain() {
    return spec.retain;
  }

  /** The schema version, part of every event id: at least 1, default 1. */
  public int schemaVersion() {
    return spec.schemaVersion;
  }

  /** The item validator, or {@code null} for none (default). */
  public @Nullable Validator<? super T> validator() {
    return spec.validator;
  }

  /** Handler retries and the poison policy; default {@link DeliveryPolicy#DEFAULT}. */
  public DeliveryPolicy delivery() {
    return spec.delivery;
  }

  /** The replay log setting; default {@link EventLog#DISABLED}. */
  public EventLog log() {
    return spec.log;
  }

  /**
   * The partitions now: re-read on every scheduling pass; {@code [""]} when unpartitioned. Invalid
   * names and duplicates from a supplier are dropped with a warning. Calls the supplier on the
   * calling thread.
   *
   * @return an unmodifiable list in the supplier's order; empty when the supplier returned null
   */
  public List<String> partitions() {
    return spec.currentPartitions();
  }

  /**
   * The whole-request timeout of {@code ctx.http()} calls.
   *
   * @return positive; default {@link RequestOptions#DEFAULT_REQUEST_TIMEOUT} (30 s)
   */
  public Duration requestTimeout() {
    return spec.requestTimeout;
  }

  /**
   * The largest response body of this poller's {@code ctx.http()} calls (docs/config.md,
   * "request.maxBodySize"): a longer one fails the request as a fetch error before it is buffered.
   *
   * @return bytes; default {@link RequestOptions#DEFAULT_MAX_BODY_SIZE} (32 MiB)
   */
  public long maxBodySize() {
    return spec.maxBodySize;
  }

  /**
   * The largest item, measured as its compact JSON text: a larger one is parked {@link
   * ParkedKind#INVALID} with its size and never hashed (docs/config.md, "maxItemSize").
   *
   * @return bytes; default {@link #DEFAULT_MAX_ITEM_SIZE} (4 MiB)
   */
  public long maxItemSize() {
    return spec.maxItemSize;
  }

  /** When the key's circuit opens; default {@link CircuitPolicy#DEFAULT}. */
  public CircuitPolicy circuit() {
    return spec.circuit;
  }

  /**
   * The reconcile lane, or null when the poller has none.
   *
   * @return the reconcile settings, or null
   */
  public @Nullable Reconcile<T> reconcile() {
    return spec.reconcile;
  }

  /**
   * The rate budget every request of this poller's {@code ctx.http()} is charged to (guarantee G6),
   * in every lane and partition.
   *
   * @return the budget name set with {@link Builder#budget}, or {@code null}: requests are not
   *     limited by the engine
   */
  public @Nullable String budget() {
    return spec.budget;
  }

  /**
   * The poller's turns per round among the keys waiting for tokens of its budget: each of its keys
   * gets up to this many tokens per round.
   *
   * @return 1 to {@value #MAX_WEIGHT}; default {@value #DEFAULT_WEIGHT}
   */
  public int weight() {
    return spec.weight;
  }

  /**
   * The longest time a request waits for a budget token before the cycle is deferred with a {@link
   * BudgetTimeoutException}.
   *
   * @return the value set with {@link Builder#maxWait}, else {@link Schedule#max()} of this
   *     poller's schedule (default 10 min)
   */
  public Duration maxWait() {
    return spec.maxWait != null ? spec.maxWait : spec.schedule.max();
  }

  /**
   * How long a key may go without a successful poll of its live lane before {@link
   * KeyInspection#stale()} says so and {@link Watukuy#health()} counts it unhealthy
   * (docs/operations.md, "Health").
   *
   * @return the value set with {@link Builder#staleAfter}, else {@value
   *     #DEFAULT_STALE_AFTER_MAX_INTERVALS} × {@link Schedule#max()} of this poller's schedule (30
   *     min with the default schedule)
   */
  public Duration staleAfter() {
    return spec.staleAfter != null
        ? spec.staleAfter
        : spec.schedule.max().multipliedBy(DEFAULT_STALE_AFTER_MAX_INTERVALS);
  }

  /**
   * The number of parked rows above which a key of this poller counts as unhealthy, or null when
   * parked rows alone never make it so (the default).
   *
   * @return the value set with {@link Builder#maxParked}, or null
   */
  public @Nullable Long maxParked() {
    return spec.maxParked;
  }

  /**
   * The signer that adds credentials to this poller's requests, or null for none.
   *
   * @return the signer set with {@link Builder#requestSigner}
   */
  public @Nullable RequestSigner requestSigner() {
    return spec.signer;
  }

  /**
   * The one origin the {@link #requestSigner()} serves, as {@code scheme://host:port} in lower case
   * with the scheme's default port filled in, or null without a signer.
   */
  public @Nullable String signerOrigin() {
    return spec.signerOrigin;
  }

  /**
   * Whether the poller declared partitions.
   *
   * @return {@code true} after {@link Builder#partitions(List)} or {@link
   *     Builder#partitions(Supplier)}
   */
  public boolean partitioned() {
    return spec.partitioned;
  }

  @Override
  public String toString() {
    return "Poller[" + spec.name + ", " + spec.cursor.name() + "]";
  }

  /**
   * Builds a {@link Poller}. {@code identity}, {@code cursor} and {@code fetch} are required;
   * {@code cursor} comes before {@code fetch} because it fixes the fetch's cursor type. Not
   * thread-safe.
   *
   * @param <T> the item type
   * @param <C> the cursor type fixed by {@link #cursor}
   */
  public static final class Builder<T, C> {
    private final PollerSpec<T> spec;

    private Builder(String name, Class<T> type) {
      this.spec = new PollerSpec<>(name, type);
    }

    /**
     * The item's identity: a {@code String}, or an integer ({@code Integer}, {@code Long}, {@code
     * BigInteger}, or an integral JSON node) written as decimal text. Anything else fails the page
     * with a {@link FetchException} naming the poller and the field. Required.
     *
     * @param identity item to identity; a null or empty identity fails the page
     * @return this builder
     * @throws NullPointerException if {@code identity} is null
     */
    public Builder<T, C> identity(Function<? super T, ?> identity) {
      spec.identity = Objects.requireNonNull(identity, "identity");
      return this;
    }

    /**
     * The item's version (same value types as identity). An item whose version equals the stored
     * one is skipped without hashing, and the version (not the hash) goes into the event id, so a
     * state that recurs under a new version gets a new id. Default none: items are compared by
     * hash.
     *
     * @param version item to version; null counts as no version for that item
     * @return this builder
     * @throws NullPointerException if {@code version} is null
     */
    public Builder<T, C> version(Function<? super T, ?> version) {
      spec.version = Objects.requireNonNull(version, "version");
      return this;
    }

    /**
     * A projection of the item that is hashed instead of the whole item (e.g. to ignore a volatile
     * field). It must be serializable to JSON; a value RFC 8785 cannot canonicalize fails the page.
     * Default: the whole item.
     *
     * @param fingerprint item to the part that matters
     * @return this builder
     * @throws NullPointerException if {@code fingerprint} is null
     */
    public Builder<T, C> fingerprint(Function<? super T, ?> fingerprint) {
      spec.fingerprint = Objects.requireNonNull(fingerprint, "fingerprint");
      return this;
    }

    /**
     * Items for which the predicate holds are tombstones: the API reports them deleted
     * (docs/architecture.md, "Tombstones"). A known identity commits a deleted event; an unknown
     * one does nothing; either way the item still moves the cursor. Tombstones are not validated.
     *
     * @param tombstone true for an item the API reports deleted
     * @return this builder
     * @throws NullPointerException if {@code tombstone} is null
     */
    public Builder<T, C> tombstone(Predicate<? super T> tombstone) {
      spec.tombstone = Objects.requireNonNull(tombstone, "tombstone");
      return this;
    }

    /**
     * The ordering key of an item's events: events with one ordering key are delivered one at a
     * time, in sequence order (G3). Default: the identity.
     *
     * @param orderingKey item to ordering key; a null key fails the page
     * @return this builder
     * @throws NullPointerException if {@code orderingKey} is null
     */
    public Builder<T, C> orderingKey(Function<? super T, String> orderingKey) {
      spec.orderingKey = Objects.requireNonNull(orderingKey, "orderingKey");
      return this;
    }

    /**
     * The cursor strategy (see {@link Cursors}). Required, before {@link #fetch}.
     *
     * @param <C2> the cursor type the strategy hands to fetch
     * @param cursor the strategy
     * @return this builder, typed for the strategy's cursor
     * @throws NullPointerException if {@code cursor} is null
     * @throws IllegalStateException if fetch was already set
     */
    @SuppressWarnings("unchecked")
    public <C2> Builder<T, C2> cursor(CursorStrategy<C2> cursor) {
      spec.cursor = spec.checkCursor(cursor);
      return (Builder<T, C2>) this;
    }

    /**
     * The fetch function. Required. Called on the cycle's thread, one page at a time; see {@link
     * Fetcher} for what a throw does.
     *
     * @param fetch requests one page of the API
     * @return this builder
     * @throws NullPointerException if {@code fetch} is null
     * @throws IllegalStateException if no cursor was set yet
     */
    public Builder<T, C> fetch(Fetcher<T, C> fetch) {
      spec.fetch = spec.checkFetch(fetch);
      return this;
    }

    /**
     * When the live lane runs, how failures back off and how long the circuit stays open. Default
     * {@link Schedule#DEFAULT}: min 30 s, max 10 min.
     *
     * @param schedule the schedule
     * @return this builder
     * @throws NullPointerException if {@code schedule} is null
     */
    public Builder<T, C> schedule(Schedule schedule) {
      spec.schedule = Objects.requireNonNull(schedule, "schedule");
      return this;
    }

    /**
     * Page cap per cycle. An incremental lane cut there continues at once from the cursor it
     * reached (default {@value #DEFAULT_MAX_PAGES_PER_CYCLE}); a full listing cut there emits no
     * deletes and reports {@code ListingTruncated} (default {@value
     * #DEFAULT_MAX_PAGES_PER_LISTING}, docs/operations.md, "Truncated listings").
     *
     * @param pages at least 1
     * @return this builder
     * @throws ConfigException if below 1
     */
    public Builder<T, C> maxPagesPerCycle(int pages) {
      spec.maxPagesPerCycle = spec.atLeast("maxPagesPerCycle", pages, 1);
      return this;
    }

    /**
     * The delete guard (docs/operations.md, "False deletes"): a complete full listing missing more
     * than {@code minCount} and more than {@code maxRatio} of the stored items holds every delete
     * and records {@code DeleteGuard} until {@link Watukuy#confirmDeletes(String)}. Default 0.5/10.
     *
     * @param maxRatio in (0, 1]; 1 turns the guard off (deletes never exceed all stored items)
     * @param minCount at least 0
     * @return this builder
     * @throws ConfigException if either is out of range
     * @since 0.2
     */
    public Builder<T, C> deleteGuard(double maxRatio, int minCount) {
      spec.deleteGuard(maxRatio, minCount);
      return this;
    }

    /**
     * What the item snapshot keeps per item. Default {@link Retain#HASH}.
     *
     * @param retain {@link Retain#PAYLOAD} to give updated events {@code previous} and deleted
     *     events their last {@code data}
     * @return this builder
     * @throws NullPointerException if {@code retain} is null
     */
    public Builder<T, C> retain(Retain retain) {
      spec.retain = Objects.requireNonNull(retain, "retain");
      return this;
    }

    /**
     * Part of every event id; bump it when the meaning of items changes. Default 1.
     *
     * @param schemaVersion at least 1
     * @return this builder
     * @throws ConfigException if below 1
     */
    public Builder<T, C> schemaVersion(int schemaVersion) {
      spec.schemaVersion = spec.atLeast("schemaVersion", schemaVersion, 1);
      return this;
    }

    /**
     * Checks items before they are diffed; items with problems are parked as {@link
     * ParkedKind#INVALID} instead. Default none.
     *
     * @param validator the validator
     * @return this builder
     * @throws NullPointerException if {@code validator} is null
     */
    public Builder<T, C> validator(Validator<? super T> validator) {
      spec.validator = Objects.requireNonNull(validator, "validator");
      return this;
    }

    /**
     * Handler retries and poison policy. Default {@link DeliveryPolicy#DEFAULT}.
     *
     * @param delivery the policy
     * @return this builder
     * @throws NullPointerException if {@code delivery} is null
     */
    public Builder<T, C> delivery(DeliveryPolicy delivery) {
      spec.delivery = Objects.requireNonNull(delivery, "delivery");
      return this;
    }

    /**
     * The replay log. Default {@link EventLog#DISABLED}.
     *
     * @param log the setting
     * @return this builder
     * @throws NullPointerException if {@code log} is null
     */
    public Builder<T, C> log(EventLog log) {
      spec.log = Objects.requireNonNull(log, "log");
      return this;
    }

    /**
     * A static list of partitions; each is a key with its own lease, cursor, snapshot and outbox.
     * Replaces earlier partitions.
     *
     * @param partitions non-empty names free of control characters, no duplicates; copied
     * @return this builder
     * @throws NullPointerException if the list or a name is null
     * @throws ConfigException if the list is empty, has duplicates, or holds an empty name or one
     *     with a control character
     */
    public Builder<T, C> partitions(List<String> partitions) {
      spec.fixedPartitions(spec.checkPartitions(partitions));
      spec.partitioned = true;
      return this;
    }

    /**
     * Partitions re-read on every scheduling pass. A partition that disappears is paused with
     * reason {@code partitionRemoved} and resumes when it returns. Names follow the rules of {@link
     * #partitions(List)}; an invalid name, a duplicate or a null list is skipped with a warning.
     * Called on the engine's threads before every tick and daemon pass; it must be fast and
     * thread-safe. Replaces earlier partitions.
     *
     * @param partitions returns the current partition names
     * @return this builder
     * @throws NullPointerException if {@code partitions} is null
     */
    public Builder<T, C> partitions(Supplier<List<String>> partitions) {
      spec.partitions = Objects.requireNonNull(partitions, "partitions");
      spec.fixedPartitions = null;
      spec.partitioned = true;
      return this;
    }

    /**
     * Adds a reconcile lane: a periodic full listing that also yields deletes for incremental
     * strategies. Rejected for snapshotDiff, which lists everything every cycle already.
     *
     * @param reconcile how often, and the paged listing
     * @return this builder
     * @throws ConfigException if the cursor strategy is snapshotDiff
     */
    public Builder<T, C> reconcile(Reconcile<T> reconcile) {
      Objects.requireNonNull(reconcile, "reconcile");
      spec.checkReconcile(reconcile);
      spec.reconcile = reconcile;
      return this;
    }

    /**
     * When the key's circuit opens. Default {@link CircuitPolicy#DEFAULT}: after 5 consecutive
     * failures, probe every {@code schedule.max}.
     *
     * @param circuit the policy
     * @return this builder
     */
    public Builder<T, C> circuit(CircuitPolicy circuit) {
      spec.circuit = Objects.requireNonNull(circuit, "circuit");
      return this;
    }

    /**
     * Whole-request timeout of {@code ctx.http()} calls (connect timeout is 10 s). Default 30 s.
     * {@link RequestOptions.Builder#timeout} overrides it per request.
     *
     * @param timeout positive
     * @return this builder
     * @throws ConfigException if not positive
     */
    public Builder<T, C> requestTimeout(Duration timeout) {
      spec.requestTimeout = spec.positive("request.timeout", timeout);
      return this;
    }

    /**
     * The largest response body of this poller's {@code ctx.http()} calls. A response announcing
     * more (Content-Length) is refused unread; one without a length is cut off as soon as it passes
     * the bound. Either is a fetch error naming the request and the size. Default 32 MiB.
     *
     * @param bytes at least 1024
     * @return this builder
     * @throws ConfigException if below 1024
     */
    public Builder<T, C> maxBodySize(long bytes) {
      spec.maxBodySize = spec.bytes("request.maxBodySize", bytes);
      return this;
    }

    /**
     * The largest item, as compact JSON text: a larger item is parked {@link ParkedKind#INVALID}
     * with its size and the limit, and never hashed nor delivered. Default 4 MiB.
     *
     * @param bytes at least 1024
     * @return this builder
     * @throws ConfigException if below 1024
     */
    public Builder<T, C> maxItemSize(long bytes) {
      spec.maxItemSize = spec.bytes("maxItemSize", bytes);
      return this;
    }

    /**
     * Charges every request of this poller's {@code ctx.http()} to a rate budget declared on the
     * engine with {@link Watukuy.Builder#budget(String, int, java.time.Duration)} (guarantee G6):
     * one token before each request, in every lane and partition, shared with every other poller
     * that names the same budget. Requests that find no token wait in fair order (see {@link
     * Watukuy.Builder#budget(String, BudgetLimit)}) up to {@link #maxWait}. Fetch code that does
     * not use {@code ctx.http()} is not charged. Default none.
     *
     * @param budget the budget name
     * @return this builder
     * @throws NullPointerException if {@code budget} is null
     * @throws ConfigException if the name is not valid (letters, digits, {@code _ . : -}, at most
     *     100 characters); a name the engine does not declare fails {@link Watukuy.Builder#build()}
     */
    public Builder<T, C> budget(String budget) {
      spec.budget = spec.checkBudget(budget);
      return this;
    }

    /**
     * This poller's turns per round among the keys waiting for tokens of its budget: with weight 2,
     * each of its keys gets two tokens for every one of a weight-1 key while both wait. Used only
     * with {@link #budget}. Default {@value #DEFAULT_WEIGHT}.
     *
     * @param weight 1 to {@value #MAX_WEIGHT}
     * @return this builder
     * @throws ConfigException if out of range
     */
    public Builder<T, C> weight(int weight) {
      spec.weight = spec.atMost("weight", spec.atLeast("weight", weight, 1), MAX_WEIGHT);
      return this;
    }

    /**
     * The longest time one request waits for a budget token, measured on the engine's {@link
     * TimeSource}; never past a {@code tick()} deadline. When it passes, the request is not sent
     * and the cycle ends deferred with a {@link BudgetTimeoutException}. Used only with {@link
     * #budget}. Default: the poller's {@link Schedule#max()}.
     *
     * @param maxWait zero (never wait) or more
     * @return this builder
     * @throws NullPointerException if {@code maxWait} is null
     * @throws ConfigException if negative
     */
    public Builder<T, C> maxWait(Duration maxWait) {
      spec.maxWait = spec.notNegative("maxWait", maxWait);
      return this;
    }

    /**
     * How long a key may go without a successful poll of its live lane before it counts as stale:
     * {@link KeyInspection#stale()}, and a reason of {@link Watukuy#health()} unless the key is
     * paused. Default {@value #DEFAULT_STALE_AFTER_MAX_INTERVALS} × the schedule's max, not its
     * min: {@code Schedule.every(Duration.ofSeconds(2))} keeps the default max of 10 min
     * (adaptive), so its key turns stale only after 30 min without a success. Set it (or {@link
     * Schedule#withMax}) when an alert must fire sooner (docs/operations.md, "Health"). A throttled
     * key (Retry-After) turns stale too once this passes without a success.
     *
     * @param staleAfter more than zero; measured on the engine's {@link TimeSource}
     * @return this builder
     * @throws NullPointerException if {@code staleAfter} is null
     * @throws ConfigException if zero or negative
     */
    public Builder<T, C> staleAfter(Duration staleAfter) {
      spec.staleAfter =
          spec.positive("staleAfter", Objects.requireNonNull(staleAfter, "staleAfter"));
      return this;
    }

    /**
     * Makes a key with more than {@code maxParked} parked rows (poison and invalid together)
     * unhealthy in {@link Watukuy#health()}. Default: parked rows alone never do.
     *
     * @param maxParked zero (any parked row is too many) or more
     * @return this builder
     * @throws ConfigException if negative
     */
    public Builder<T, C> maxParked(long maxParked) {
      if (maxParked < 0)
        throw new ConfigException(
            "poller " + spec.name + ": maxParked must be >= 0, but was " + maxParked);
      spec.maxParked = maxParked;
      return this;
    }

    /**
     * Adds credentials to every request of this poller's {@code ctx.http()} that goes to {@code
     * origin}: the signer sees each request right before it is sent (redirect hops and retries
     * included) and adds headers or a query parameter. A request to any other origin (a next-page
     * link or a redirect elsewhere) is sent unsigned. Fetch code that does not use {@code
     * ctx.http()} is not signed. Default none.
     *
     * @param origin an absolute http or https URL; only its scheme, host and port count
     * @param signer shared by every key and partition; thread-safe
     * @return this builder
     * @throws NullPointerException if either is null
     * @throws ConfigException if {@code origin} is not an absolute http or https URL
     */
    public Builder<T, C> requestSigner(String origin, RequestSigner signer) {
      Objects.requireNonNull(origin, "origin");
      spec.signer = Objects.requireNonNull(signer, "signer");
      spec.signerOrigin = spec.origin("requestSigner origin", origin);
      return this;
    }

    /**
     * The poller. The builder stays usable.
     *
     * @return an immutable poller
     * @throws ConfigException if identity, cursor or fetch is missing, or the timestamp strategy's
     *     initial value cannot be parsed
     */
    public Poller<T> build() {
      spec.checkReconcile(spec.reconcile);
      Poller<T> p = new Poller<>(this);
      LaneCursors.validate(spec.name, p.spec.cursor);
      return p;
    }
  }
}
