package io.watukuy;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A declared poller: what to fetch, how to identify and version items, which cursor strategy
 * remembers progress, and how events are delivered. Immutable and thread-safe; build with
 * {@link #builder(String, Class)}:
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
  /** Default page cap per cycle (DESIGN.md). */
  public static final int DEFAULT_MAX_PAGES_PER_CYCLE = 50;
  /** Default schema version. */
  public static final int DEFAULT_SCHEMA_VERSION = 1;

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Poller.class);
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}");

  private final String name;
  private final Class<T> type;
  private final Function<? super T, ?> identity;
  private final @Nullable Function<? super T, ?> version;
  private final @Nullable Function<? super T, ?> fingerprint;
  private final @Nullable Predicate<? super T> tombstone;
  private final @Nullable Function<? super T, String> orderingKey;
  private final CursorStrategy<?> cursor;
  private final Fetcher<T, ?> fetch;
  private final Schedule schedule;
  private final int maxPagesPerCycle;
  private final Retain retain;
  private final int schemaVersion;
  private final @Nullable Validator<? super T> validator;
  private final DeliveryPolicy delivery;
  private final EventLog log;
  private final Supplier<List<String>> partitions;
  private final boolean partitioned;
  private final java.time.Duration requestTimeout;

  private Poller(Builder<T, ?> b) {
    this.name = b.name;
    this.type = b.type;
    this.identity = required(b.identity, b.name, "identity");
    this.version = b.version;
    this.fingerprint = b.fingerprint;
    this.tombstone = b.tombstone;
    this.orderingKey = b.orderingKey;
    this.cursor = required(b.cursor, b.name, "cursor");
    this.fetch = required(b.fetch, b.name, "fetch");
    this.schedule = b.schedule;
    this.maxPagesPerCycle = b.maxPagesPerCycle;
    this.retain = b.retain;
    this.schemaVersion = b.schemaVersion;
    this.validator = b.validator;
    this.delivery = b.delivery;
    this.log = b.log;
    this.partitions = b.partitions;
    this.partitioned = b.partitioned;
    this.requestTimeout = b.requestTimeout;
  }

  /**
   * Why a partition name is not valid, or null: it must be non-empty ({@code ""} is the key of an
   * unpartitioned poller) and free of control characters.
   */
  public static @Nullable String partitionProblem(String partition) {
    if (partition.isEmpty()) return "is empty; \"\" is reserved for unpartitioned pollers";
    for (int i = 0; i < partition.length(); i++)
      if (Character.isISOControl(partition.charAt(i))) return "contains a control character";
    return null;
  }

  private static <V> V required(@Nullable V value, String poller, String field) {
    if (value == null) throw new ConfigException("poller " + poller + ": " + field + " is required");
    return value;
  }

  /**
   * Starts a poller declaration.
   *
   * @param name unique among the engine's pollers: letters, digits, {@code _ . : -}, at most 100
   *     characters, starting with a letter or digit
   * @param type the item type ({@code JsonNode.class} to keep items as JSON trees)
   * @throws ConfigException if the name is not valid
   */
  public static <T> Builder<T, Void> builder(String name, Class<T> type) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    if (!NAME.matcher(name).matches())
      throw new ConfigException(
          "poller name '" + name + "' is not valid: use letters, digits, _ . : - (at most 100)");
    return new Builder<>(name, type);
  }

  public String name() {
    return name;
  }

  public Class<T> type() {
    return type;
  }

  public Function<? super T, ?> identity() {
    return identity;
  }

  public @Nullable Function<? super T, ?> version() {
    return version;
  }

  public @Nullable Function<? super T, ?> fingerprint() {
    return fingerprint;
  }

  public @Nullable Predicate<? super T> tombstone() {
    return tombstone;
  }

  /** The ordering-key function, or null for the default (the identity). */
  public @Nullable Function<? super T, String> orderingKey() {
    return orderingKey;
  }

  public CursorStrategy<?> cursor() {
    return cursor;
  }

  public Fetcher<T, ?> fetch() {
    return fetch;
  }

  public Schedule schedule() {
    return schedule;
  }

  public int maxPagesPerCycle() {
    return maxPagesPerCycle;
  }

  public Retain retain() {
    return retain;
  }

  public int schemaVersion() {
    return schemaVersion;
  }

  public @Nullable Validator<? super T> validator() {
    return validator;
  }

  public DeliveryPolicy delivery() {
    return delivery;
  }

  public EventLog log() {
    return log;
  }

  /**
   * The partitions now: re-read on every scheduling pass; {@code [""]} when unpartitioned.
   * Invalid names and duplicates from a supplier are dropped with a warning.
   */
  public List<String> partitions() {
    if (!partitioned) return List.of("");
    List<String> p = partitions.get();
    if (p == null) {
      LOG.warn("poller {}: the partitions supplier returned null; no partition is polled", name);
      return List.of();
    }
    java.util.LinkedHashSet<String> valid = new java.util.LinkedHashSet<>();
    for (String s : p) {
      String problem = s == null ? "is null" : partitionProblem(s);
      if (problem != null) LOG.warn("poller {}: partition '{}' {}; skipped", name, s, problem);
      else if (!valid.add(s)) LOG.warn("poller {}: partition '{}' is listed twice", name, s);
    }
    return List.copyOf(valid);
  }

  /** Whole-request timeout of {@code ctx.http()} calls. Default 30 s. */
  public java.time.Duration requestTimeout() {
    return requestTimeout;
  }

  /** Whether the poller declared partitions. */
  public boolean partitioned() {
    return partitioned;
  }

  @Override
  public String toString() {
    return "Poller[" + name + ", " + cursor.name() + "]";
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
    private final String name;
    private final Class<T> type;
    private @Nullable Function<? super T, ?> identity;
    private @Nullable Function<? super T, ?> version;
    private @Nullable Function<? super T, ?> fingerprint;
    private @Nullable Predicate<? super T> tombstone;
    private @Nullable Function<? super T, String> orderingKey;
    private @Nullable CursorStrategy<?> cursor;
    private @Nullable Fetcher<T, ?> fetch;
    private Schedule schedule = Schedule.DEFAULT;
    private int maxPagesPerCycle = DEFAULT_MAX_PAGES_PER_CYCLE;
    private Retain retain = Retain.HASH;
    private int schemaVersion = DEFAULT_SCHEMA_VERSION;
    private @Nullable Validator<? super T> validator;
    private DeliveryPolicy delivery = DeliveryPolicy.DEFAULT;
    private EventLog log = EventLog.DISABLED;
    private Supplier<List<String>> partitions = () -> List.of("");
    private boolean partitioned;
    private java.time.Duration requestTimeout = RequestOptions.DEFAULT_REQUEST_TIMEOUT;

    private Builder(String name, Class<T> type) {
      this.name = name;
      this.type = type;
    }

    /**
     * The item's identity: a {@code String}, or an integer ({@code Integer}, {@code Long},
     * {@code BigInteger}, or an integral JSON node) written as decimal text. Anything else fails
     * the page with a {@link FetchException} naming the poller and the field. Required.
     */
    public Builder<T, C> identity(Function<? super T, ?> identity) {
      this.identity = Objects.requireNonNull(identity, "identity");
      return this;
    }

    /**
     * The item's version (same value types as identity). An item whose version equals the
     * stored one is skipped without hashing. Default none: items are compared by hash.
     */
    public Builder<T, C> version(Function<? super T, ?> version) {
      this.version = Objects.requireNonNull(version, "version");
      return this;
    }

    /**
     * A projection of the item that is hashed instead of the whole item (e.g. to ignore a
     * volatile field). It must be serializable to JSON. Default: the whole item.
     */
    public Builder<T, C> fingerprint(Function<? super T, ?> fingerprint) {
      this.fingerprint = Objects.requireNonNull(fingerprint, "fingerprint");
      return this;
    }

    /**
     * Items for which the predicate holds are tombstones: the API reports them deleted
     * (DESIGN.md "Tombstones"). A known identity commits a deleted event; an unknown one does
     * nothing; either way the item still moves the cursor.
     */
    public Builder<T, C> tombstone(Predicate<? super T> tombstone) {
      this.tombstone = Objects.requireNonNull(tombstone, "tombstone");
      return this;
    }

    /** The ordering key of an item's events. Default: the identity. */
    public Builder<T, C> orderingKey(Function<? super T, String> orderingKey) {
      this.orderingKey = Objects.requireNonNull(orderingKey, "orderingKey");
      return this;
    }

    /**
     * The cursor strategy (see {@link Cursors}). Required, before {@link #fetch}.
     *
     * @throws IllegalStateException if fetch was already set
     */
    @SuppressWarnings("unchecked")
    public <C2> Builder<T, C2> cursor(CursorStrategy<C2> cursor) {
      Objects.requireNonNull(cursor, "cursor");
      if (fetch != null)
        throw new IllegalStateException("poller " + name + ": set cursor before fetch");
      this.cursor = cursor;
      return (Builder<T, C2>) this;
    }

    /**
     * The fetch function. Required.
     *
     * @throws IllegalStateException if no cursor was set yet
     */
    public Builder<T, C> fetch(Fetcher<T, C> fetch) {
      Objects.requireNonNull(fetch, "fetch");
      if (cursor == null)
        throw new IllegalStateException("poller " + name + ": set cursor before fetch");
      this.fetch = fetch;
      return this;
    }

    /** Default {@link Schedule#DEFAULT}: min 30 s, max 10 min. */
    public Builder<T, C> schedule(Schedule schedule) {
      this.schedule = Objects.requireNonNull(schedule, "schedule");
      return this;
    }

    /**
     * Page cap per cycle; a longer listing is truncated and continues at once (catch-up).
     * Default {@value #DEFAULT_MAX_PAGES_PER_CYCLE}.
     *
     * @throws ConfigException if below 1
     */
    public Builder<T, C> maxPagesPerCycle(int pages) {
      if (pages < 1)
        throw new ConfigException(
            "poller " + name + ": maxPagesPerCycle must be >= 1, but was " + pages);
      this.maxPagesPerCycle = pages;
      return this;
    }

    /** Default {@link Retain#HASH}. */
    public Builder<T, C> retain(Retain retain) {
      this.retain = Objects.requireNonNull(retain, "retain");
      return this;
    }

    /**
     * Part of every event id; bump it when the meaning of items changes. Default 1.
     *
     * @throws ConfigException if below 1
     */
    public Builder<T, C> schemaVersion(int schemaVersion) {
      if (schemaVersion < 1)
        throw new ConfigException(
            "poller " + name + ": schemaVersion must be >= 1, but was " + schemaVersion);
      this.schemaVersion = schemaVersion;
      return this;
    }

    /** Items with problems are parked as invalid instead of diffed. Default none. */
    public Builder<T, C> validator(Validator<? super T> validator) {
      this.validator = Objects.requireNonNull(validator, "validator");
      return this;
    }

    /** Handler retries and poison policy. Default {@link DeliveryPolicy#DEFAULT}. */
    public Builder<T, C> delivery(DeliveryPolicy delivery) {
      this.delivery = Objects.requireNonNull(delivery, "delivery");
      return this;
    }

    /** The replay log. Default {@link EventLog#DISABLED}. */
    public Builder<T, C> log(EventLog log) {
      this.log = Objects.requireNonNull(log, "log");
      return this;
    }

    /**
     * A static list of partitions; each is a key with its own lease, cursor, snapshot and outbox.
     *
     * @throws ConfigException if the list is empty or has duplicates
     */
    public Builder<T, C> partitions(List<String> partitions) {
      List<String> copy = List.copyOf(partitions);
      if (copy.isEmpty()) throw new ConfigException("poller " + name + ": partitions must not be empty");
      for (String p : copy) {
        String problem = partitionProblem(p);
        if (problem != null) throw new ConfigException("poller " + name + ": partition '" + p + "' " + problem);
      }
      if (copy.stream().distinct().count() != copy.size())
        throw new ConfigException("poller " + name + ": partitions has duplicates: " + copy);
      this.partitions = () -> copy;
      this.partitioned = true;
      return this;
    }

    /**
     * Partitions re-read on every scheduling pass. A partition that disappears is paused with
     * reason {@code partitionRemoved} and resumes when it returns. Names follow the rules of
     * {@link #partitions(List)}; an invalid name, a duplicate or a null list is skipped with a
     * warning.
     */
    public Builder<T, C> partitions(Supplier<List<String>> partitions) {
      this.partitions = Objects.requireNonNull(partitions, "partitions");
      this.partitioned = true;
      return this;
    }

    /**
     * Whole-request timeout of {@code ctx.http()} calls (connect timeout is 10 s). Default 30 s.
     *
     * @throws ConfigException if not positive
     */
    public Builder<T, C> requestTimeout(java.time.Duration timeout) {
      if (timeout.isNegative() || timeout.isZero())
        throw new ConfigException("poller " + name + ": request.timeout must be > 0, but was " + timeout);
      this.requestTimeout = timeout;
      return this;
    }

    /**
     * @throws ConfigException if identity, cursor or fetch is missing
     */
    public Poller<T> build() {
      Poller<T> p = new Poller<>(this);
      io.watukuy.internal.cursor.LaneCursors.validate(name, p.cursor);
      return p;
    }
  }
}
