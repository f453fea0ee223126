package io.watukuy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.watukuy.BudgetLimit;
import io.watukuy.ConfigException;
import io.watukuy.DeliveryOptions;
import io.watukuy.DeliveryPolicy;
import io.watukuy.EventLog;
import io.watukuy.Poller;
import io.watukuy.RequestSigner;
import io.watukuy.Retain;
import io.watukuy.Schedule;
import io.watukuy.Watukuy;
import io.watukuy.cli.CliConfig.CursorSpec;
import io.watukuy.cli.CliConfig.DeletedSpec;
import io.watukuy.cli.CliConfig.DeletesSpec;
import io.watukuy.cli.CliConfig.PollerSpec;
import io.watukuy.cli.CliConfig.ReconcileSpec;
import io.watukuy.cli.CliConfig.RequestSpec;
import io.watukuy.cli.CliConfig.ResponseSpec;
import io.watukuy.cli.CliConfig.SinkSpec;
import io.watukuy.cli.CliConfig.StoreSpec;
import io.watukuy.cli.StoreUris.StoreOptions;
import io.watukuy.sink.SinkConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads and validates a YAML config by hand, so that every error names the file, the line, the
 * poller and the key: {@code watukuy.yaml:17: poller orders: cursor.lag: '30x' is not a duration
 * (ms, s, m, h, d)}. The first error wins.
 */
final class ConfigReader {
  static final String DEFAULT_STORE = "sqlite:watukuy.db";
  static final Duration MIN_LEASE_TTL = Duration.ofSeconds(1);

  private static final Pattern ENV = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");
  // ${file:PATH} in a sink section: a file's content, e.g. a secret mounted by the platform
  private static final Pattern FILE_REF = Pattern.compile("\\$\\{file:([^}]+)}");
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");

  private final YamlTree tree;
  private final String file;
  private final Function<String, @Nullable String> env;
  private final Set<String> secrets = new LinkedHashSet<>();
  // Each secret's variable: a config error names ${NAME} where it would quote the value.
  private final Map<String, String> variables = new LinkedHashMap<>();
  // For commands that never make a sink (inspect, migrate, the operations): a sink section's
  // ${NAME} or ${file:PATH} that is not there stays as written instead of failing the command.
  private boolean sinkSecretsOptional;

  /** The config's folder: relative paths in it ({@code schema: file}) are resolved there. */
  private @Nullable Path dir;

  private @Nullable String poller;
  private Map<String, BudgetLimit> budgets = Map.of();
  private Map<String, RequestSigner> auths = Map.of();
  private io.watukuy.@Nullable SealingKeys secretKey;
  private @Nullable StoredCredentials credentials;

  private ConfigReader(YamlTree tree, String file, Function<String, @Nullable String> env) {
    this.tree = tree;
    this.file = file;
    this.env = env;
  }

  /**
   * Reads {@code path}; {@code path} as given names the file in messages.
   *
   * @throws ConfigException for a missing file or any invalid setting
   */
  static CliConfig read(Path path, Function<String, @Nullable String> env) {
    return read(path, env, found -> {});
  }

  /**
   * Reads {@code path} and hands the secrets read from the environment on before returning or
   * throwing (to {@code found}), so that whatever the caller prints afterwards (a {@code --verbose}
   * stack trace) can hide them. A config error names the variable ({@code ${NAME}}) wherever its
   * message would quote a secret value, in any encoding (docs/operations.md, "Secrets").
   *
   * @throws ConfigException for a missing file or any invalid setting
   */
  static CliConfig read(
      Path path, Function<String, @Nullable String> env, Consumer<Set<String>> found) {
    return read(path, env, found, false);
  }

  /**
   * Reads {@code path} for a command that never makes a sink ({@code inspect}, {@code migrate}, the
   * operations): a sink section's {@code ${NAME}} whose variable is not set, or {@code
   * ${file:PATH}} whose file does not exist, stays as written, so these commands run where the
   * sinks' secrets are not given (docs/config.md, "A poller"). Everything else is read and checked
   * as {@link #read(Path, Function, Consumer)} does.
   *
   * @throws ConfigException for a missing file or any invalid setting
   */
  static CliConfig readWithoutSinkSecrets(
      Path path, Function<String, @Nullable String> env, Consumer<Set<String>> found) {
    return read(path, env, found, true);
  }

  private static CliConfig read(
      Path path,
      Function<String, @Nullable String> env,
      Consumer<Set<String>> found,
      boolean sinkSecretsOptional) {
    String file = path.toString();
    String text;
    try {
      text = Files.readString(path, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new ConfigException(file + ": no such file");
    } catch (IOException e) {
      throw new ConfigException(file + ": cannot read: " + e.getMessage(), e);
    }
    Path dir = path.toAbsolutePath().getParent();
    ConfigReader reader = new ConfigReader(YamlTree.parse(text, file), file, env);
    reader.sinkSecretsOptional = sinkSecretsOptional;
    try {
      return reader.config(dir);
    } catch (ConfigException e) {
      String named = reader.named(e.getMessage());
      if (named.equals(e.getMessage())) throw e;
      // Not chained: the original message, and perhaps its cause's, quote the value.
      ConfigException hidden = new ConfigException(named);
      hidden.setStackTrace(e.getStackTrace());
      throw hidden;
    } finally {
      found.accept(Set.copyOf(reader.secrets));
    }
  }

  /** {@code message} with each secret, in any of its encodings, replaced by its {@code ${NAME}}. */
  private String named(@Nullable String message) {
    // One pass: a ${NAME} put in for one value is never scanned for another.
    return Watukuy.naming(variables.keySet(), value -> "${" + variables.get(value) + "}")
        .apply(String.valueOf(message));
  }

  private CliConfig config(Path dir) {
    this.dir = dir;
    At root = new At(tree.root(), "", "");
    root.object(
        "store",
        "output",
        "sink",
        "delivery",
        "budgets",
        "budgetStore",
        "lease",
        "auths",
        "secretKey",
        "pollers",
        "effects");
    StoreSpec store = store(root.child("store"), dir);
    Path output = output(root.child("output"), dir);
    At sinkAt = root.child("sink");
    if (!sinkAt.missing() && !root.child("output").missing())
      throw sinkAt.error(
          "and output: are both set at the top level: keep one (output: stdout is sink:"
              + " {type: stdout}, output: file:PATH is sink: {type: file, path: PATH})");
    SinkSpec sink = sinkAt.missing() ? outputSink(root.child("output"), output) : sink(sinkAt);
    At delivery = root.child("delivery");
    DeliveryOptions options = DeliveryOptions.DEFAULT;
    if (!delivery.missing()) {
      delivery.object("concurrency", "dispatchBatchSize", "batchSize");
      options =
          new DeliveryOptions(
              delivery.child("concurrency").integer(DeliveryOptions.DEFAULT_CONCURRENCY, 1),
              delivery
                  .child("dispatchBatchSize")
                  .integer(DeliveryOptions.DEFAULT_DISPATCH_BATCH_SIZE, 1),
              delivery.child("batchSize").integer(DeliveryOptions.DEFAULT_BATCH_SIZE, 1));
    }
    Duration leaseTtl = leaseTtl(root.child("lease"));
    budgets = BudgetConfig.budgets(root.child("budgets"));
    secretKey = secretKey(root.child("secretKey"));
    credentials = new StoredCredentials(store.display());
    auths = AuthConfig.named(root.child("auths"), secretKey, credentials);
    StoreSpec budgetStore =
        BudgetConfig.budgetStore(root.child("budgetStore"), dir, !budgets.isEmpty());
    At pollers = root.child("pollers");
    if (pollers.missing()) throw root.error("pollers: missing (a list of pollers)");
    if (!pollers.node.isArray() || pollers.node.isEmpty()) {
      throw pollers.error("must be a non-empty list of pollers");
    }
    List<PollerSpec> specs = new ArrayList<>();
    Set<String> names = new LinkedHashSet<>();
    for (int i = 0; i < pollers.node.size(); i++) {
      At p = new At(pollers.node.get(i), pollers.pointer + "/" + i, "");
      PollerSpec spec = poller(p, i);
      if (!names.add(spec.name())) {
        throw new ConfigException(
            file + ":" + spec.line() + ": poller " + spec.name() + ": name: used twice");
      }
      specs.add(spec);
      poller = null;
    }
    List<YamlEffects.EffectSpec> effects = YamlEffects.read(root.child("effects"), specs);
    return new CliConfig(
        file,
        dir,
        store,
        output,
        sink,
        options,
        List.copyOf(specs),
        Set.copyOf(secrets),
        budgets,
        budgetStore,
        tree.line("/store"),
        tree.line("/output"),
        leaseTtl,
        secretKey,
        java.util.Objects.requireNonNull(credentials),
        Map.copyOf(auths),
        effects,
        tree);
  }

  /**
   * {@code secretKey:} (docs/config.md, "secretKey"): one base64 key, or a list of {@code {id,
   * key}}, newest first; null when absent. The keys are secrets: hidden wherever printed.
   */
  private io.watukuy.@Nullable SealingKeys secretKey(At at) {
    if (at.missing()) return null;
    try {
      if (at.node.isArray()) {
        if (at.node.isEmpty()) throw at.error("must list at least one {id, key}");
        io.watukuy.SealingKeys.Builder b = io.watukuy.SealingKeys.builder();
        for (int i = 0; i < at.node.size(); i++) {
          At one = at.item(i);
          one.object("id", "key");
          if (one.child("id").missing()) throw one.error("id: missing");
          if (one.child("key").missing()) throw one.error("key: missing");
          try {
            b.key(
                "secretKey[" + (i + 1) + "].key",
                one.child("id").string(""),
                one.child("key").secret());
          } catch (ConfigException e) {
            throw one.error(e.getMessage());
          }
        }
        return b.build();
      }
      return io.watukuy.SealingKeys.of("secretKey", at.secret());
    } catch (ConfigException e) {
      if (String.valueOf(e.getMessage()).startsWith(file + ":")) throw e;
      throw at.error(e.getMessage());
    }
  }

  /**
   * {@code lease: {ttl}}: how long a key stays with an instance that stopped renewing (G5). At
   * least 1 s: the lease is renewed every third of it, and a hand-off to the output needs a third
   * of it left (docs/guarantees.md, G5).
   */
  private static Duration leaseTtl(At at) {
    if (at.missing()) return Watukuy.DEFAULT_LEASE_TTL;
    at.object("ttl");
    At ttlAt = at.child("ttl");
    Duration ttl = ttlAt.duration(Watukuy.DEFAULT_LEASE_TTL);
    if (ttl.compareTo(MIN_LEASE_TTL) < 0)
      throw ttlAt.error(
          "'"
              + ttlAt.node.asText()
              + "' is too short: at least 1s (the lease is renewed every third of it)");
    return ttl;
  }

  private StoreSpec store(At at, Path dir) {
    if (at.missing()) return StoreUris.spec(DEFAULT_STORE, StoreOptions.NONE, dir, at::error);
    if (!at.node.isObject())
      return StoreUris.spec(at.envString(), StoreOptions.NONE, dir, at::error);
    at.object("uri", "tablePrefix", "busyTimeoutMs", "schema", "prefix");
    At uriAt = at.child("uri");
    if (uriAt.missing()) {
      throw at.error(
          "uri: missing (sqlite:PATH, memory:, postgres:JDBC-URL, mariadb:JDBC-URL or"
              + " redis://host:port/db)");
    }
    StoreOptions options =
        new StoreOptions(
            option(at, "tablePrefix"),
            at.child("busyTimeoutMs").missing()
                ? null
                : (long) at.child("busyTimeoutMs").integer(0, 0),
            option(at, "schema"),
            option(at, "prefix"));
    return StoreUris.spec(uriAt.envString(), options, dir, at::error);
  }

  /** The string at {@code key}, or null when it is absent. */
  static @Nullable String option(At at, String key) {
    return at.child(key).missing() ? null : at.child(key).string(null);
  }

  private static final Pattern SECRET_NAME =
      Pattern.compile("(?i).*(TOKEN|KEY|SECRET|PASS|AUTH|CRED|SIGNATURE).*");

  /**
   * Whether an environment value is hidden in what the command prints: when it is 6 characters or
   * longer, or its variable's name says it is a credential ({@code ERP_TOKEN}, {@code API_KEY},
   * {@code DB_PASSWORD}, ...). Short plain values ({@code REGION=eu}) are left alone, so they do
   * not blank out every "eu" in a line.
   */
  static boolean looksSecret(String name, String value) {
    return !value.isEmpty() && (value.length() >= 6 || SECRET_NAME.matcher(name).matches());
  }

  private @Nullable Path output(At at, Path dir) {
    if (at.missing()) return null;
    String out = at.envString();
    if (out.equals("stdout")) return null;
    if (out.startsWith("file:") && out.length() > "file:".length()) {
      return dir.resolve(out.substring("file:".length())).normalize();
    }
    throw at.error("'" + out + "' is not an output (stdout or file:PATH)");
  }

  private PollerSpec poller(At p, int index) {
    if (!p.node.isObject()) throw p.error("pollers[" + index + "]: must be a map");
    At nameAt = p.child("name");
    if (nameAt.missing()) throw p.error("pollers[" + index + "]: name: missing");
    String name = nameAt.string(null);
    if (name == null || !NAME.matcher(name).matches()) {
      throw nameAt.error("'" + name + "' is not a poller name (letters, digits, _ . -)");
    }
    poller = name;
    p.object(
        "name",
        "partitions",
        "request",
        "response",
        "identity",
        "version",
        "orderingKey",
        "deleted",
        "cursor",
        "schedule",
        "maxPagesPerCycle",
        "deletes",
        "schema",
        "retain",
        "delivery",
        "log",
        "reconcile",
        "budget",
        "weight",
        "maxWait",
        "maxItemSize",
        "auth",
        "sink",
        "staleAfter",
        "maxParked");

    List<String> partitions = new ArrayList<>();
    At parts = p.child("partitions");
    if (!parts.missing()) {
      if (!parts.node.isArray()) throw parts.error("must be a list");
      for (int i = 0; i < parts.node.size(); i++) {
        At part = parts.item(i);
        String value = part.string(null);
        if (value == null) throw part.error("must be a string");
        String problem = Poller.partitionProblem(value);
        if (problem != null) throw part.error(problem);
        partitions.add(value);
      }
    }

    At request = p.child("request");
    if (request.missing()) throw p.error("request: missing (url and query)");
    RequestSpec requestSpec = ListingConfig.request(request);
    At response = p.child("response");
    if (response.missing()) throw p.error("response: missing (at least items)");
    ResponseSpec responseSpec = ListingConfig.response(response);
    // A kept next URL, like a GraphQL pageInfo, hands the token strategy its cursor, as a token
    // pointer would.
    Locator next =
        responseSpec.nextUrl() != null
            ? responseSpec.nextUrl().url()
            : responseSpec.next() != null ? responseSpec.next() : responseSpec.pageInfo();

    At identityAt = p.child("identity");
    if (identityAt.missing())
      throw p.error("identity: missing (a pointer to each item's id, e.g. /id)");
    Locator identity = identityAt.locator();
    Locator version = p.child("version").missing() ? null : p.child("version").locator();
    Locator ordering = p.child("orderingKey").missing() ? null : p.child("orderingKey").locator();
    DeletedSpec deleted = deleted(p.child("deleted"));
    CursorSpec cursor = CursorConfig.cursor(p, p.child("cursor"), next, responseSpec.nextLink());
    GraphQlConfig.check(p, requestSpec, responseSpec, cursor.strategy());
    ReconcileSpec reconcile = ListingConfig.reconcile(p.child("reconcile"), cursor);
    PagingRules.check(p, requestSpec, responseSpec, cursor);
    if (reconcile != null)
      PagingRules.check(p.child("reconcile"), reconcile.request(), reconcile.response(), null);
    Schedule schedule = PollerSettings.schedule(p.child("schedule"));
    DeletesSpec deletes = PollerSettings.deletes(p.child("deletes"));
    ItemSchema schema = PollerSettings.schema(p.child("schema"), dir);
    At maxPagesAt = p.child("maxPagesPerCycle");
    Integer maxPages = maxPagesAt.missing() ? null : maxPagesAt.integer(0, 1);
    Retain retain = Retain.HASH;
    At retainAt = p.child("retain");
    if (!retainAt.missing()) {
      String r = retainAt.string("");
      if (!r.equals("hash") && !r.equals("payload"))
        throw retainAt.error("'" + r + "' is not hash or payload");
      retain = Retain.fromWire(r);
    }
    DeliveryPolicy delivery = PollerSettings.delivery(p.child("delivery"));
    EventLog log = PollerSettings.log(p.child("log"));
    At budgetAt = p.child("budget");
    String budget = budgetAt.string(null);
    if (budget != null && !budgets.containsKey(budget)) {
      throw budgetAt.error(
          "'"
              + budget
              + "' is not declared under budgets"
              + (budgets.isEmpty()
                  ? " (the file has no budgets: section)"
                  : " (declared: " + String.join(", ", new TreeSet<>(budgets.keySet())) + ")"));
    }
    At weightAt = p.child("weight");
    int weight = weightAt.integer(Poller.DEFAULT_WEIGHT, 1);
    if (weight > Poller.MAX_WEIGHT)
      throw weightAt.error("'" + weight + "' is more than " + Poller.MAX_WEIGHT);
    At maxWaitAt = p.child("maxWait");
    Duration maxWait = maxWaitAt.duration(null);
    Long maxItemSize = p.child("maxItemSize").size();
    if (budget == null) {
      // Both only shape the wait for a budget's tokens: without a budget they would do nothing.
      if (!weightAt.missing())
        throw weightAt.error("needs budget: (it orders the requests waiting for a budget)");
      if (!maxWaitAt.missing())
        throw maxWaitAt.error("needs budget: (it bounds the wait for a budget's token)");
    }
    // Health (docs/operations.md, "Health"): the core builder validates too, this names the line.
    At staleAfterAt = p.child("staleAfter");
    Duration staleAfter = staleAfterAt.duration(null);
    if (staleAfter != null && (staleAfter.isZero() || staleAfter.isNegative()))
      throw staleAfterAt.error("'" + staleAfterAt.node.asText() + "' must be more than 0");
    At maxParkedAt = p.child("maxParked");
    Long maxParked = maxParkedAt.missing() ? null : (long) maxParkedAt.integer(0, 0);
    return new PollerSpec(
        name,
        tree.line(p.pointer),
        List.copyOf(partitions),
        requestSpec,
        responseSpec,
        identity,
        version,
        ordering,
        deleted,
        cursor,
        schedule,
        maxPages,
        deletes,
        schema,
        retain,
        delivery,
        log,
        reconcile,
        budget,
        weight,
        maxWait,
        maxItemSize,
        p.child("sink").missing() ? null : sink(p.child("sink")),
        AuthConfig.poller(p.child("auth"), request.child("url"), auths),
        staleAfter,
        maxParked);
  }

  /**
   * {@code output:} as the sink it stands for: {@code {type: stdout}}, or {@code {type: file, path:
   * PATH}} with the path already resolved; null when absent.
   */
  private @Nullable SinkSpec outputSink(At at, @Nullable Path file) {
    if (at.missing()) return null;
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    if (file == null) node.put("type", "stdout");
    else node.put("type", "file").put("path", file.toString());
    return new SinkSpec(node, at.pointer, "output", where());
  }

  /**
   * A {@code sink:} section, with {@code ${NAME}} and {@code ${file:PATH}} replaced in every string
   * (nested maps and lists too) before any provider sees it.
   */
  private SinkSpec sink(At at) {
    if (!at.node.isObject())
      throw at.error("must be a map with a type, e.g. {type: file, path: events.jsonl}");
    return new SinkSpec(at.substituted(), at.pointer, at.label, where());
  }

  /** The {@code FILE:LINE: poller NAME: } prefix for a pointer, for the poller being read now. */
  private Function<String, String> where() {
    String who = poller == null ? "" : "poller " + poller + ": ";
    return pointer -> file + ":" + tree.line(pointer) + ": " + who;
  }

  private @Nullable DeletedSpec deleted(At at) {
    if (at.missing()) return null;
    if (at.node.isObject()) {
      at.object("pointer", "equals");
      At ptr = at.child("pointer");
      if (ptr.missing()) throw at.error("pointer: missing");
      At eq = at.child("equals");
      if (eq.missing()) throw at.error("equals: missing (the value that marks a deleted item)");
      if (!eq.node.isValueNode() || eq.node.isNull())
        throw eq.error("must be a string, number or boolean");
      return new DeletedSpec(ptr.locator(), eq.node.asText());
    }
    return new DeletedSpec(at.locator(), null);
  }

  /** A node with its JSON Pointer and its dotted name relative to the poller (or the file). */
  final class At {
    final JsonNode node;
    final String pointer;
    final String label;

    At(JsonNode node, String pointer, String label) {
      this.node = node;
      this.pointer = pointer;
      this.label = label;
    }

    boolean missing() {
      return node.isMissingNode();
    }

    At child(String key) {
      JsonNode n = node.isObject() && node.has(key) ? node.get(key) : MissingNode.getInstance();
      return new At(
          n, pointer + "/" + YamlTree.escape(key), label.isEmpty() ? key : label + "." + key);
    }

    At item(int i) {
      return new At(node.get(i), pointer + "/" + i, label + "[" + i + "]");
    }

    ConfigException error(String message) {
      String where = label.isEmpty() ? "" : label + ": ";
      String who = poller == null ? "" : "poller " + poller + ": ";
      return new ConfigException(file + ":" + tree.line(pointer) + ": " + who + where + message);
    }

    /** Requires a map whose keys are all in {@code allowed}. */
    void object(String... allowed) {
      object("", List.of(allowed));
    }

    /**
     * As {@link #object(String...)}, the message naming {@code who} first (as {@code "effect
     * welcome: "}), so that a misspelt key names what it belongs to.
     */
    void object(String who, List<String> allowed) {
      if (!node.isObject()) throw error(who + "must be a map");
      for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
        String key = it.next();
        if (!allowed.contains(key)) {
          throw child(key)
              .error(who + "unknown key (expected one of " + String.join(", ", allowed) + ")");
        }
      }
    }

    @Nullable String string(@Nullable String fallback) {
      if (missing()) return fallback;
      if (!node.isTextual()) throw error("must be a string, but was " + node);
      return node.textValue();
    }

    /**
     * A string with {@code ${NAME}} read from the environment; values that look secret (see {@link
     * ConfigReader#looksSecret}) are hidden wherever they would be printed.
     */
    String envString() {
      if (!node.isValueNode() || node.isNull()) throw error("must be a string");
      return substitute(node.asText(), false);
    }

    /**
     * A string of an {@code effects:} request: {@code ${file:PATH}} and {@code ${NAME}} replaced as
     * in a sink section ({@link #substituted()}), a file's content hidden wherever it would be
     * printed, except that a command that never runs effects (as it never makes a sink) leaves an
     * unset variable or a missing file as written.
     */
    String effectString() {
      if (!node.isValueNode() || node.isNull()) throw error("must be a string");
      return substituteAll(node.asText());
    }

    /**
     * {@code text} with {@code ${NAME}} replaced; with {@code optional}, an unset variable stays as
     * written.
     */
    private String substitute(String text, boolean optional) {
      Matcher m = ENV.matcher(text);
      StringBuilder b = new StringBuilder();
      while (m.find()) {
        String value = env.apply(m.group(1));
        if (value == null && optional) {
          m.appendReplacement(b, Matcher.quoteReplacement(m.group()));
          continue;
        }
        if (value == null) throw error("environment variable " + m.group(1) + " is not set");
        if (looksSecret(m.group(1), value)) {
          secrets.add(value);
          variables.putIfAbsent(value, m.group(1));
        }
        m.appendReplacement(b, Matcher.quoteReplacement(value));
      }
      m.appendTail(b);
      return b.toString();
    }

    /**
     * Whether an unset {@code ${NAME}} or a missing {@code ${file:PATH}} in an effect's request was
     * left as written: the command runs no effects (see {@link #effectString()}).
     */
    boolean effectsLeftUnset() {
      return sinkSecretsOptional;
    }

    /**
     * A credential: {@code ${file:PATH}} and {@code ${NAME}} replaced, trimmed, and hidden wherever
     * it would be printed whatever it looks like (docs/operations.md, "Secrets").
     */
    String secret() {
      if (!node.isValueNode() || node.isNull()) throw error("must be a string");
      String value = substituteAll(node.asText()).strip();
      if (value.isEmpty()) throw error("is empty");
      secrets.add(value);
      return value;
    }

    /**
     * A copy of this node with {@code ${NAME}} and {@code ${file:PATH}} replaced in every string it
     * holds, however deep.
     */
    JsonNode substituted() {
      if (node.isTextual()) return TextNode.valueOf(substituteAll(node.textValue()));
      if (node.isObject()) {
        ObjectNode copy = JsonNodeFactory.instance.objectNode();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
          String key = it.next();
          copy.set(key, child(key).substituted());
        }
        return copy;
      }
      if (node.isArray()) {
        ArrayNode copy = JsonNodeFactory.instance.arrayNode();
        for (int i = 0; i < node.size(); i++) copy.add(item(i).substituted());
        return copy;
      }
      return node;
    }

    /**
     * {@code ${file:PATH}} replaced by the file's content (trailing newlines cut; PATH relative to
     * the config's folder), always hidden wherever it would be printed, then {@code ${NAME}}.
     */
    private String substituteAll(String text) {
      Matcher m = FILE_REF.matcher(text);
      StringBuilder b = new StringBuilder();
      while (m.find()) {
        if (sinkSecretsOptional && !Files.exists(dir.resolve(m.group(1)).normalize())) {
          m.appendReplacement(b, Matcher.quoteReplacement(m.group()));
          continue;
        }
        String value = fileContent(m.group(1));
        if (!value.isEmpty()) {
          secrets.add(value);
          variables.putIfAbsent(value, "file:" + m.group(1));
        }
        m.appendReplacement(b, Matcher.quoteReplacement(value));
      }
      m.appendTail(b);
      return substitute(b.toString(), sinkSecretsOptional);
    }

    /** The content of {@code ${file:PATH}}; an error names the path, never the content. */
    private String fileContent(String name) {
      Path path = dir.resolve(name).normalize();
      String text;
      try {
        text = Files.readString(path, StandardCharsets.UTF_8);
      } catch (NoSuchFileException e) {
        throw error("${file:" + name + "}: " + path + " does not exist");
      } catch (IOException e) {
        // The reason only: an I/O message names the file, never its content.
        throw error(
            "${file:" + name + "}: cannot read " + path + ": " + e.getClass().getSimpleName());
      }
      int end = text.length();
      while (end > 0 && (text.charAt(end - 1) == '\n' || text.charAt(end - 1) == '\r')) end--;
      return text.substring(0, end);
    }

    Template template() {
      String text = envString();
      try {
        return Template.parse(text);
      } catch (IllegalArgumentException e) {
        throw error(e.getMessage());
      }
    }

    Map<String, Template> templates() {
      Map<String, Template> out = new LinkedHashMap<>();
      if (missing()) return out;
      if (!node.isObject()) throw error("must be a map");
      for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
        String key = it.next();
        if (key.isEmpty()) throw child(key).error("empty name");
        out.put(key, child(key).template());
      }
      return out;
    }

    Locator locator() {
      if (!node.isTextual())
        throw error("must be a JSON Pointer (/id) or a dot path (id), but was " + node);
      try {
        return Locator.parse(node.textValue());
      } catch (IllegalArgumentException e) {
        throw error("'" + node.textValue() + "' is not a JSON Pointer: " + e.getMessage());
      }
    }

    @Nullable Duration duration(@Nullable Duration fallback) {
      if (missing()) return fallback;
      try {
        return SinkConfig.parseDuration(node.asText());
      } catch (IllegalArgumentException e) {
        throw error(e.getMessage());
      }
    }

    /** A size in bytes ({@link Sizes#parse}) of at least 1KB, or null when absent. */
    @Nullable Long size() {
      if (missing()) return null;
      if (!node.isValueNode() || node.isNull() || node.isBoolean())
        throw error("must be a size " + Sizes.UNITS + ", but was " + node);
      long bytes;
      try {
        bytes = Sizes.parse(node.asText());
      } catch (IllegalArgumentException e) {
        throw error(e.getMessage());
      }
      if (bytes < 1024) throw error("'" + node.asText() + "' is less than 1KB");
      return bytes;
    }

    int integer(int fallback, int min) {
      if (missing()) return fallback;
      // A list or a map has no text of its own: name it as it was written.
      String written = node.isContainerNode() ? node.toString() : node.asText();
      if (node.isIntegralNumber()
          && !node.canConvertToInt()
          && node.bigIntegerValue().signum() > 0) {
        throw error(
            "'" + written + "' is more than " + Integer.MAX_VALUE + ", the largest allowed");
      }
      if (!node.isIntegralNumber() || !node.canConvertToInt() || node.intValue() < min) {
        throw error("'" + written + "' is not a whole number of at least " + min);
      }
      return node.intValue();
    }

    boolean bool(boolean fallback) {
      if (missing()) return fallback;
      if (!node.isBoolean()) throw error("'" + node.asText() + "' is not true or false");
      return node.booleanValue();
    }
  }
}
