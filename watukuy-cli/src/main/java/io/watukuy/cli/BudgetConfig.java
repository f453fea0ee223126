package io.watukuy.cli;

import io.watukuy.BudgetLimit;
import io.watukuy.ConfigException;
import io.watukuy.Watukuy;
import io.watukuy.cli.CliConfig.StoreSpec;
import io.watukuy.cli.ConfigReader.At;
import io.watukuy.cli.StoreUris.StoreOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The {@code budgets:} and {@code budgetStore:} parts of a config (G6): the rate budgets pollers
 * share, and the Redis that shares their buckets between instances. Apart from {@link ConfigReader}
 * because they are read once per file, beside the pollers rather than in them.
 */
final class BudgetConfig {
  private static final Pattern BUDGET_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}");

  private BudgetConfig() {}

  /**
   * {@code budgetStore: redis://host:port/db} or {@code {uri, prefix}}: the budgets' buckets in
   * Redis, shared by every instance that names the same server and prefix (G6 across instances).
   *
   * @param anyBudget whether the config declares a budget: without one there is nothing to share
   */
  static @Nullable StoreSpec budgetStore(At at, Path dir, boolean anyBudget) {
    if (at.missing()) return null;
    StoreSpec spec;
    if (at.node.isObject()) {
      at.object("uri", "prefix");
      At uri = at.child("uri");
      if (uri.missing()) throw at.error("uri: missing (redis://host:port/db)");
      spec =
          StoreUris.spec(
              uri.envString(),
              new StoreOptions(null, null, null, ConfigReader.option(at, "prefix")),
              dir,
              at::error);
    } else {
      spec = StoreUris.spec(at.envString(), StoreOptions.NONE, dir, at::error);
    }
    if (spec.kind() != StoreSpec.Kind.REDIS) {
      throw at.error(
          "'"
              + spec.display()
              + "': budgets are shared through Redis only (redis://host:port/db);"
              + " without budgetStore they hold for this process");
    }
    if (!anyBudget) throw at.error("there are no budgets to share (budgets: is missing)");
    return spec;
  }

  /**
   * {@code budgets: {NAME: {requests, per, burst}}}: the rate budgets pollers share (G6); burst
   * defaults to requests.
   */
  static Map<String, BudgetLimit> budgets(At at) {
    if (at.missing()) return Map.of();
    if (!at.node.isObject())
      throw at.error("must be a map of budgets, e.g. {erp: {requests: 100, per: 1m}}");
    Map<String, BudgetLimit> out = new LinkedHashMap<>();
    for (Iterator<String> it = at.node.fieldNames(); it.hasNext(); ) {
      String name = it.next();
      At b = at.child(name);
      if (!BUDGET_NAME.matcher(name).matches())
        throw b.error("is not a budget name (letters, digits, _ . : -)");
      b.object("requests", "per", "burst");
      if (b.child("requests").missing()) throw b.error("requests: missing (tokens per `per`)");
      if (b.child("per").missing()) throw b.error("per: missing (a duration, e.g. 1m)");
      int requests = b.child("requests").integer(1, 1);
      Duration per = b.child("per").duration(null);
      if (per == null || per.isZero()) throw b.child("per").error("must be at least 1ms");
      int burst = b.child("burst").integer(requests, 1);
      try {
        BudgetLimit limit = new BudgetLimit(requests, per, burst);
        // The engine's own checks (the bucket arithmetic's range), with this file's line.
        Watukuy.builder().budget(name, limit);
        out.put(name, limit);
      } catch (ConfigException e) {
        throw b.error(e.getMessage());
      }
    }
    return Map.copyOf(out);
  }
}
