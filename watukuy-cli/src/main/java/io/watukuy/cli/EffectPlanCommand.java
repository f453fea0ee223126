package io.watukuy.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.ConfigException;
import io.watukuy.cli.CliConfig.StoreSpec;
import io.watukuy.effects.EffectPlan;
import io.watukuy.effects.Effects;
import io.watukuy.spi.EffectCursor;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.StateStore;
import io.watukuy.store.memory.MemoryStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code watukuy effects plan CONFIG} (docs/config.md, "Effects commands"; docs/effects.md,
 * "Plan"): what a deploy of the config's {@code effects:} would find in its store, read without
 * taking a lease or writing anything. It is {@link Effects#plan()} over the effects {@code run}
 * would start, plus the effects the store holds that the config no longer declares (retired: their
 * positions hold the log's retention until {@code effects forget}).
 */
@Command(
    name = "plan",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    customSynopsis = "watukuy effects plan CONFIG [--json]",
    description = {
      "Reports what a deploy of the effects of CONFIG would change against its store.",
      "Per effect and source key: a key scheme that moved, and whether rows written under the old one"
          + " are outstanding, which starts the key blocked; effects new to the store; and effects the"
          + " store holds that CONFIG no longer declares (retired). Exit 0 when nothing would start"
          + " blocked, 3 when a key would (so CI can gate a deploy on it)."
    })
final class EffectPlanCommand implements Callable<Integer> {
  /** The exit code when a deploy would start an effect's key blocked (docs/config.md). */
  static final int BLOCKED = 3;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Cli cli;

  @Parameters(paramLabel = "CONFIG", description = "The YAML config file whose effects: to plan.")
  Path config;

  @Option(names = "--json", description = "One JSON object instead.")
  boolean json;

  @Spec CommandSpec spec;
  @Mixin Cli.Verbose v;

  EffectPlanCommand(Cli cli) {
    this.cli = cli;
  }

  /** One effect's verdict: its state and, unless retired, its plan per source key. */
  private record Entry(
      String effect, String state, List<Keyed> plans, List<EffectCursor> retired) {}

  /** One source key's plan and the invocation rows above its position. */
  private record Keyed(EffectPlan plan, long rows) {}

  @Override
  public Integer call() {
    CliConfig cfg = cli.loadWithoutSinks(config);
    StoreSpec store = cfg.store();
    // A SQLite store not made yet holds nothing: every effect is new. It is not created here.
    try (StateStore opened = Stores.isNew(store) ? new MemoryStore() : Stores.open(store)) {
      EffectStore effects =
          opened
              .effects()
              .orElseThrow(() -> new ConfigException(store.display() + " keeps no effects"));
      List<Entry> entries = entries(cfg, opened, effects);
      boolean blocked = entries.stream().anyMatch(e -> e.state().equals("blocked"));
      if (json) cli.out.println(json(entries, blocked));
      else text(entries);
      if (!blocked) return Main.OK;
      cli.err.println(
          "watukuy: a deploy of "
              + config
              + " would start "
              + entries.stream()
                  .filter(e -> e.state().equals("blocked"))
                  .map(Entry::effect)
                  .collect(Collectors.joining(", "))
              + " blocked (exit "
              + BLOCKED
              + ")");
      return BLOCKED;
    }
  }

  private List<Entry> entries(CliConfig cfg, StateStore store, EffectStore effects) {
    List<String> stored = effects.listEffects();
    Map<String, List<Keyed>> byEffect = new LinkedHashMap<>();
    plans(cfg, store)
        .forEach(
            (name, plans) -> {
              for (EffectPlan p : plans)
                byEffect
                    .computeIfAbsent(name, n -> new ArrayList<>())
                    .add(new Keyed(p, effects.countInvocations(name, p.source(), p.watermark())));
            });
    List<Entry> out = new ArrayList<>();
    for (YamlEffects.EffectSpec s : cfg.effects()) {
      List<Keyed> plans = byEffect.getOrDefault(s.name(), List.of());
      out.add(new Entry(s.name(), state(stored.contains(s.name()), plans), plans, List.of()));
    }
    for (String name : stored)
      if (!byEffect.containsKey(name)
          && cfg.effects().stream().noneMatch(s -> s.name().equals(name)))
        out.add(new Entry(name, "retired", List.of(), effects.loadCursors(name)));
    return out;
  }

  /**
   * {@link Effects#plan()} of the config's {@code effects:} over {@code store}, read without taking
   * a lease or writing anything: the one judgement of a key scheme change that {@code plan}, {@code
   * list} and {@code show} share (docs/effects.md, "Plan" and "States").
   *
   * @return the plans per effect name, in the config's order; empty without {@code effects:}
   * @throws ConfigException when the config's effects or pollers cannot be built
   */
  static Map<String, List<EffectPlan>> plans(CliConfig cfg, StateStore store) {
    Map<String, List<EffectPlan>> byEffect = new LinkedHashMap<>();
    if (cfg.effects().isEmpty()) return byEffect;
    try (Effects runtime =
        YamlEffects.runtime(
            cfg.effects(), store, YamlPollers.build(cfg), cfg.secrets(), cfg.secretKey())) {
      for (EffectPlan p : runtime.plan())
        byEffect.computeIfAbsent(p.effect(), n -> new ArrayList<>()).add(p);
    }
    return byEffect;
  }

  /**
   * Why a deploy starts a source key blocked, as {@code plan} and {@code show} print it.
   *
   * @param p a plan whose {@link EffectPlan#blocked()} holds
   * @param rows the invocation rows above its watermark
   * @return one line naming the moved schemes, the outstanding lanes and rows, and the ways out
   */
  static String blockedReason(EffectPlan p, long rows) {
    return "blocked: the key scheme of "
        + String.join(", ", p.movedSchemes())
        + " moved while "
        + p.outstandingLanes()
        + " lane(s) have "
        + rows
        + " invocation row(s) above position "
        + p.watermark()
        + "; drain them under the previous key first, or rewind to "
        + p.watermark();
  }

  private static String state(boolean stored, List<Keyed> plans) {
    if (!stored) return "new";
    if (plans.stream().anyMatch(k -> k.plan().blocked())) return "blocked";
    if (plans.stream().anyMatch(k -> k.plan().schemeChanged())) return "changed";
    return "unchanged";
  }

  private void text(List<Entry> entries) {
    for (Entry e : entries) {
      switch (e.state()) {
        case "new" -> cli.out.println("effect " + e.effect() + ": new (nothing stored for it yet)");
        case "retired" ->
            cli.out.println(
                "effect "
                    + e.effect()
                    + ": retired (in the store, not in "
                    + config
                    + "); its positions "
                    + positions(e.retired())
                    + " hold the log's retention until: watukuy effects forget "
                    + config
                    + " "
                    + e.effect());
        default -> {
          cli.out.println("effect " + e.effect() + ": " + e.state());
          for (Keyed k : e.plans()) cli.out.println("  " + k.plan().source() + ": " + line(k));
        }
      }
    }
  }

  private static String positions(List<EffectCursor> cursors) {
    if (cursors.isEmpty()) return "(none)";
    return cursors.stream()
        .map(c -> c.source() + "=" + c.watermark())
        .collect(Collectors.joining(", ", "(", ")"));
  }

  /** What a deploy does on one source key. */
  private static String line(Keyed k) {
    EffectPlan p = k.plan();
    String moved = String.join(", ", p.movedSchemes());
    if (p.blocked()) return blockedReason(p, k.rows());
    if (p.schemeChanged())
      return "key scheme moves: " + moved + "; no rows above position " + p.watermark();
    if (p.recordedSchemes().isEmpty())
      return "position "
          + p.watermark()
          + ", no key scheme recorded yet (a new key, or rewound): it starts under the declared one";
    return "unchanged at position " + p.watermark();
  }

  private String json(List<Entry> entries, boolean blocked) {
    ObjectNode root = JSON.createObjectNode();
    root.put("blocked", blocked);
    ArrayNode list = root.putArray("effects");
    for (Entry e : entries) {
      ObjectNode n = list.addObject();
      n.put("effect", e.effect());
      n.put("state", e.state());
      ArrayNode sources = n.putArray("sources");
      for (Keyed k : e.plans()) {
        EffectPlan p = k.plan();
        ObjectNode s = sources.addObject();
        s.put("poller", p.source().poller());
        s.put("partition", p.source().partition());
        s.put("position", p.watermark());
        s.set("recordedSchemes", JSON.valueToTree(p.recordedSchemes()));
        s.set("declaredSchemes", JSON.valueToTree(p.declaredSchemes()));
        s.set("movedSchemes", JSON.valueToTree(p.movedSchemes()));
        s.put("outstandingLanes", p.outstandingLanes());
        s.put("outstandingRows", k.rows());
        s.put("blocked", p.blocked());
      }
      for (EffectCursor c : e.retired()) {
        ObjectNode s = sources.addObject();
        s.put("poller", c.source().poller());
        s.put("partition", c.source().partition());
        s.put("position", c.watermark());
      }
    }
    return root.toString();
  }
}
