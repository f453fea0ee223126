package io.watukuy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.BodyFormat;
import io.watukuy.BudgetLimit;
import io.watukuy.DeliveryOptions;
import io.watukuy.DeliveryPolicy;
import io.watukuy.EventLog;
import io.watukuy.Retain;
import io.watukuy.Schedule;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A validated config file: what {@link ConfigReader} makes of the YAML. {@code budgets} are the
 * declared rate budgets by name (empty when the file has none); {@code budgetStore} is where their
 * buckets live when instances share them ({@code redis://…}), or null for this process's memory.
 * {@code storeLine} and {@code outputLine} are the lines of {@code store:} and {@code output:} (1
 * when absent), for the checks that come after reading ({@link RunChecks}). {@code sink} is the
 * top-level {@code sink:} (or {@code output:}) of the pollers without one of their own; null when
 * the file has neither (standard output). {@code leaseTtl} is {@code lease.ttl}, by default {@link
 * io.watukuy.Watukuy#DEFAULT_LEASE_TTL}. {@code tree} is the file as it was parsed (values as
 * written, {@code ${NAME}} not expanded), for the checks that look at how a value is written
 * ({@link AuthWarnings}). {@code effects} are the {@code effects:} ({@link YamlEffects}), empty
 * when the file has none.
 */
record CliConfig(
    String file,
    Path dir,
    StoreSpec store,
    @Nullable Path outputFile,
    @Nullable SinkSpec sink,
    DeliveryOptions delivery,
    List<PollerSpec> pollers,
    Set<String> secrets,
    Map<String, BudgetLimit> budgets,
    @Nullable StoreSpec budgetStore,
    int storeLine,
    int outputLine,
    Duration leaseTtl,
    io.watukuy.@Nullable SealingKeys secretKey,
    StoredCredentials credentials,
    Map<String, io.watukuy.RequestSigner> auths,
    List<YamlEffects.EffectSpec> effects,
    YamlTree tree) {

  /**
   * A store URI and its options (docs/stores.md, "Store URIs (YAML and `--store`)"): {@code
   * memory:}, {@code sqlite:PATH} (the path already resolved), {@code postgres:JDBC-URL}, {@code
   * mariadb:JDBC-URL} or {@code redis://host:port/db}. Only the options of its kind are set.
   *
   * @param uri as written, for messages through {@link #display()} only (it may hold a password)
   * @param target the JDBC URL ({@code POSTGRES}, {@code MARIADB}) or the Redis URI ({@code
   *     REDIS}), else null
   */
  record StoreSpec(
      String uri,
      Kind kind,
      @Nullable Path sqlitePath,
      @Nullable String target,
      @Nullable String tablePrefix,
      @Nullable Long busyTimeoutMs,
      @Nullable String schema,
      @Nullable String keyPrefix) {

    enum Kind {
      MEMORY,
      SQLITE,
      POSTGRES,
      MARIADB,
      REDIS
    }

    static StoreSpec memory(String uri) {
      return new StoreSpec(uri, Kind.MEMORY, null, null, null, null, null, null);
    }

    static StoreSpec sqlite(
        String uri, Path path, @Nullable String tablePrefix, @Nullable Long busyTimeoutMs) {
      return new StoreSpec(uri, Kind.SQLITE, path, null, tablePrefix, busyTimeoutMs, null, null);
    }

    /** The URI with any password (a {@code password=} parameter, {@code user:password@}) hidden. */
    String display() {
      return uri.replaceAll("(?i)(password=)[^&;]*", "$1***")
          .replaceAll("(//[^/@:]*:)[^/@]*@", "$1***@");
    }
  }

  record PollerSpec(
      String name,
      int line,
      List<String> partitions,
      RequestSpec request,
      ResponseSpec response,
      Locator identity,
      @Nullable Locator version,
      @Nullable Locator orderingKey,
      @Nullable DeletedSpec deleted,
      CursorSpec cursor,
      Schedule schedule,
      @Nullable Integer maxPagesPerCycle,
      DeletesSpec deletes,
      @Nullable ItemSchema schema,
      Retain retain,
      DeliveryPolicy delivery,
      EventLog log,
      @Nullable ReconcileSpec reconcile,
      @Nullable String budget,
      int weight,
      @Nullable Duration maxWait,
      @Nullable Long maxItemSize,
      @Nullable SinkSpec sink,
      AuthConfig.@Nullable PollerAuth auth,
      @Nullable Duration staleAfter,
      @Nullable Long maxParked) {}

  /**
   * A {@code sink:} section (docs/sinks.md, "Configuration"), or the {@code output:} shorthand as
   * one: its map with every {@code ${NAME}} and {@code ${file:PATH}} already replaced, its JSON
   * Pointer and label for messages, and {@code where}, the {@code FILE:LINE: poller NAME: } prefix
   * of an error about the value at a pointer.
   */
  record SinkSpec(JsonNode node, String pointer, String label, Function<String, String> where) {}

  /** The reconcile lane: a full listing paged by {@code {{page}}} or Link, every {@code every}. */
  record ReconcileSpec(Duration every, RequestSpec request, ResponseSpec response) {}

  record RequestSpec(
      Template url,
      Map<String, Template> headers,
      Map<String, Template> query,
      @Nullable Duration timeout,
      @Nullable Long maxBodySize,
      RequestBody body) {

    /** Whether the URL, a header, a query value or the body holds {@code {{name}}}. */
    boolean uses(String name) {
      return url.uses(name)
          || headers.values().stream().anyMatch(t -> t.uses(name))
          || query.values().stream().anyMatch(t -> t.uses(name))
          || body.uses(name);
    }
  }

  /**
   * {@code hasMore} is a pointer, or {@code nonEmpty} (then {@code hasMore} is null); {@code next}
   * is a token pointer in the body, or, with {@code nextLink}, the {@code Link rel="next"} header
   * (then {@code next} and {@code hasMore} are null), or with {@code nextUrl} a URL in the body
   * (then too). {@code pageInfo} is a GraphQL Relay {@code pageInfo} object, which pages by itself
   * (then {@code next} and {@code hasMore} are null). {@code total} is a pointer, or with {@code
   * totalHeader} the header that holds the total ({@code X-Total-Count}).
   */
  record ResponseSpec(
      Locator items,
      @Nullable Locator hasMore,
      boolean hasMoreNonEmpty,
      @Nullable Locator next,
      boolean nextLink,
      @Nullable Locator total,
      @Nullable Locator pageInfo,
      @Nullable NextLink nextUrl,
      @Nullable String totalHeader,
      @Nullable BodyFormat format) {

    /** This spec with {@code response.format} (docs/config.md, "response.format"). */
    ResponseSpec withFormat(@Nullable BodyFormat format) {
      return new ResponseSpec(
          items,
          hasMore,
          hasMoreNonEmpty,
          next,
          nextLink,
          total,
          pageInfo,
          nextUrl,
          totalHeader,
          format);
    }
  }

  /** The delete guard of a full listing (docs/operations.md, "False deletes"). */
  record DeletesSpec(double maxRatio, int minCount) {
    static final DeletesSpec DEFAULT = new DeletesSpec(0.5, 10);
  }

  /** A tombstone test: the value at {@code at} is {@code true}, or equals {@code equals}. */
  record DeletedSpec(Locator at, @Nullable String equals) {}

  /**
   * A poller's {@code cursor:} section (docs/config.md, "A poller"). {@code sorted} is {@code
   * cursor.sorted} (docs/config.md, "Unsorted listings"): true by default, and always true for the
   * token, page and snapshotDiff strategies, which refuse the key.
   */
  record CursorSpec(
      String strategy,
      @Nullable String field,
      @Nullable String tieBreak,
      @Nullable String initial,
      @Nullable Integer initialPage,
      Duration lag,
      Duration overlap,
      @Nullable DateTimeFormatter format,
      @Nullable Integer maxOffset,
      boolean sorted) {}
}
