package io.watukuy;

import io.watukuy.internal.http.DefaultHttp;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything a {@link Poller} declares, with its defaults: the mutable state behind {@link
 * Poller.Builder}, and an immutable copy of it behind each built {@link Poller}. Kept apart so that
 * {@code Poller.java} holds the public declaration and its documentation, this file the fields and
 * the partition rules. The defaults are the ones documented on each builder method.
 *
 * @param <T> the item type
 */
final class PollerSpec<T> {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}");

  private static final Logger LOG = LoggerFactory.getLogger(Poller.class);

  final String name;
  final Class<T> type;
  @Nullable Function<? super T, ?> identity;
  @Nullable Function<? super T, ?> version;
  @Nullable Function<? super T, ?> fingerprint;
  @Nullable Predicate<? super T> tombstone;
  @Nullable Function<? super T, String> orderingKey;
  @Nullable CursorStrategy<?> cursor;
  @Nullable Fetcher<T, ?> fetch;
  Schedule schedule = Schedule.DEFAULT;

  /** Null for the lane's default: 50 for incremental lanes, 10 000 for full listings. */
  @Nullable Integer maxPagesPerCycle;

  double deleteGuardMaxRatio = 0.5;
  int deleteGuardMinCount = 10;
  Retain retain = Retain.HASH;
  int schemaVersion = Poller.DEFAULT_SCHEMA_VERSION;
  @Nullable Validator<? super T> validator;
  DeliveryPolicy delivery = DeliveryPolicy.DEFAULT;
  EventLog log = EventLog.DISABLED;
  Supplier<List<String>> partitions = () -> List.of("");
  boolean partitioned;

  /** The checked list of {@code partitions(List)}, the same on every pass; null for a supplier. */
  @Nullable List<String> fixedPartitions;

  Duration requestTimeout = RequestOptions.DEFAULT_REQUEST_TIMEOUT;
  long maxBodySize = RequestOptions.DEFAULT_MAX_BODY_SIZE;
  long maxItemSize = Poller.DEFAULT_MAX_ITEM_SIZE;
  CircuitPolicy circuit = CircuitPolicy.DEFAULT;
  @Nullable Reconcile<T> reconcile;
  @Nullable String budget;
  int weight = Poller.DEFAULT_WEIGHT;
  @Nullable Duration maxWait;
  @Nullable Duration staleAfter;
  @Nullable Long maxParked;
  @Nullable RequestSigner signer;
  // scheme://host:port of the one origin the signer serves, default ports filled in
  @Nullable String signerOrigin;

  PollerSpec(String name, Class<T> type) {
    this.name = name;
    this.type = type;
  }

  /**
   * {@code value}, checked.
   *
   * @throws ConfigException naming the poller and the field when {@code value < min}
   */
  int atLeast(String field, int value, int min) {
    if (value < min)
      throw new ConfigException(
          "poller " + name + ": " + field + " must be >= " + min + ", but was " + value);
    return value;
  }

  /** {@code value}, checked: at most {@code max}, else a ConfigException naming the field. */
  int atMost(String field, int value, int max) {
    if (value > max)
      throw new ConfigException(
          "poller " + name + ": " + field + " must be <= " + max + ", but was " + value);
    return value;
  }

  /** {@code d}, checked: more than zero, else a ConfigException naming the field. */
  Duration positive(String field, Duration d) {
    if (d.isNegative() || d.isZero())
      throw new ConfigException("poller " + name + ": " + field + " must be > 0, but was " + d);
    return d;
  }

  /** A size in bytes, checked: at least 1 KiB, else a ConfigException naming the field. */
  long bytes(String field, long value) {
    if (value < 1024)
      throw new ConfigException(
          "poller " + name + ": " + field + " must be at least 1024 bytes, but was " + value);
    return value;
  }

  /** {@code d}, checked: not null and not negative. */
  Duration notNegative(String field, Duration d) {
    Objects.requireNonNull(d, field);
    if (d.isNegative())
      throw new ConfigException("poller " + name + ": " + field + " must be >= 0, but was " + d);
    return d;
  }

  /** A poller name, checked: letters, digits, {@code _ . : -}, at most 100 characters. */
  static String checkName(String name) {
    Objects.requireNonNull(name, "name");
    if (!NAME.matcher(name).matches())
      throw new ConfigException(
          "poller name '" + name + "' is not valid: use letters, digits, _ . : - (at most 100)");
    return name;
  }

  /**
   * The origin of {@code url} as {@code scheme://host:port} ({@link DefaultHttp#origin}), checked:
   * an absolute http or https URL.
   */
  String origin(String field, String url) {
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      throw new ConfigException(
          "poller " + name + ": " + field + " is not a valid URL: " + e.getReason());
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null)
      throw new ConfigException(
          "poller " + name + ": " + field + " is not an absolute http or https URL");
    return DefaultHttp.origin(uri);
  }

  /** A budget name, checked like a poller name. */
  String checkBudget(String budget) {
    Objects.requireNonNull(budget, "budget");
    if (!NAME.matcher(budget).matches())
      throw new ConfigException(
          "poller "
              + name
              + ": budget name '"
              + budget
              + "' is not valid: use letters, digits, _ . : - (at most 100)");
    return budget;
  }

  /** Sets a static partition list, already checked ({@link #checkPartitions}). */
  void fixedPartitions(List<String> checked) {
    fixedPartitions = checked;
    partitions = () -> checked;
  }

  /** A static partition list, copied and checked: not empty, valid names, no duplicates. */
  List<String> checkPartitions(List<String> partitions) {
    List<String> copy = List.copyOf(partitions);
    if (copy.isEmpty())
      throw new ConfigException("poller " + name + ": partitions must not be empty");
    for (String p : copy) {
      String problem = partitionProblem(p);
      if (problem != null)
        throw new ConfigException("poller " + name + ": partition '" + p + "' " + problem);
    }
    if (copy.stream().distinct().count() != copy.size())
      throw new ConfigException("poller " + name + ": partitions has duplicates: " + copy);
    return copy;
  }

  /** The cursor strategy, checked: not null, and set before fetch. */
  <C> CursorStrategy<C> checkCursor(CursorStrategy<C> c) {
    Objects.requireNonNull(c, "cursor");
    if (fetch != null)
      throw new IllegalStateException("poller " + name + ": set cursor before fetch");
    return c;
  }

  /** The fetch function, checked: not null, and set after the cursor. */
  <F extends Fetcher<T, ?>> F checkFetch(F f) {
    Objects.requireNonNull(f, "fetch");
    if (cursor == null)
      throw new IllegalStateException("poller " + name + ": set cursor before fetch");
    return f;
  }

  /** Sets the delete guard, checked: maxRatio in (0, 1], minCount at least 0. */
  void deleteGuard(double maxRatio, int minCount) {
    if (!(maxRatio > 0 && maxRatio <= 1))
      throw new ConfigException(
          "poller " + name + ": deletes.maxRatio must be in (0, 1], but was " + maxRatio);
    deleteGuardMaxRatio = maxRatio;
    deleteGuardMinCount = atLeast("deletes.minCount", minCount, 0);
  }

  /**
   * A copy for a built poller, which the builder can no longer change.
   *
   * @throws ConfigException if identity, cursor or fetch is missing
   */
  PollerSpec<T> complete() {
    required(identity, "identity");
    required(cursor, "cursor");
    required(fetch, "fetch");
    PollerSpec<T> c = new PollerSpec<>(name, type);
    c.identity = identity;
    c.version = version;
    c.fingerprint = fingerprint;
    c.tombstone = tombstone;
    c.orderingKey = orderingKey;
    c.cursor = cursor;
    c.fetch = fetch;
    c.schedule = schedule;
    c.maxPagesPerCycle = maxPagesPerCycle;
    c.deleteGuardMaxRatio = deleteGuardMaxRatio;
    c.deleteGuardMinCount = deleteGuardMinCount;
    c.retain = retain;
    c.schemaVersion = schemaVersion;
    c.validator = validator;
    c.delivery = delivery;
    c.log = log;
    c.partitions = partitions;
    c.partitioned = partitioned;
    c.fixedPartitions = fixedPartitions;
    c.requestTimeout = requestTimeout;
    c.maxBodySize = maxBodySize;
    c.maxItemSize = maxItemSize;
    c.circuit = circuit;
    c.reconcile = reconcile;
    c.budget = budget;
    c.weight = weight;
    c.maxWait = maxWait;
    c.staleAfter = staleAfter;
    c.maxParked = maxParked;
    c.signer = signer;
    c.signerOrigin = signerOrigin;
    return c;
  }

  /**
   * Refuses a reconcile lane on snapshotDiff, which lists everything every cycle already.
   *
   * @param reconcile the lane being declared, or null for none
   * @throws ConfigException if both are declared
   */
  void checkReconcile(@Nullable Reconcile<T> reconcile) {
    if (reconcile != null && cursor instanceof SnapshotDiffCursor)
      throw new ConfigException(
          "poller "
              + name
              + ": reconcile is redundant with cursor snapshotDiff, which lists everything every cycle");
  }

  private void required(@Nullable Object value, String field) {
    if (value == null) throw new ConfigException("poller " + name + ": " + field + " is required");
  }

  /** See {@link Poller#partitionProblem(String)}. */
  static @Nullable String partitionProblem(String partition) {
    if (partition.isEmpty()) return "is empty; \"\" is reserved for unpartitioned pollers";
    for (int i = 0; i < partition.length(); i++)
      if (Character.isISOControl(partition.charAt(i))) return "contains a control character";
    return null;
  }

  /** See {@link Poller#partitions()}: the supplier's names, invalid ones and repeats dropped. */
  List<String> currentPartitions() {
    if (!partitioned) return List.of("");
    // A static list was checked when it was set: the same immutable list on every pass, which
    // lets a pass over thousands of partitions skip rebuilding its keys (PartitionSync).
    List<String> fixed = fixedPartitions;
    if (fixed != null) return fixed;
    List<String> p = partitions.get();
    if (p == null) {
      LOG.warn("poller {}: the partitions supplier returned null; no partition is polled", name);
      return List.of();
    }
    LinkedHashSet<String> valid = new LinkedHashSet<>();
    for (String s : p) {
      String problem = s == null ? "is null" : partitionProblem(s);
      if (problem != null) LOG.warn("poller {}: partition '{}' {}; skipped", name, s, problem);
      else if (!valid.add(s)) LOG.warn("poller {}: partition '{}' is listed twice", name, s);
    }
    return List.copyOf(valid);
  }
}
