package io.watukuy.cli;

import io.watukuy.ConfigException;
import io.watukuy.PollerKey;
import io.watukuy.cli.CliConfig.PollerSpec;
import io.watukuy.cli.CliConfig.SinkSpec;
import io.watukuy.sink.EventFormat;
import io.watukuy.sink.Sink;
import io.watukuy.sink.SinkConfig;
import io.watukuy.sink.SinkProvider;
import io.watukuy.spi.StateStore;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The sinks of a config (docs/sinks.md, "Configuration"): each poller's own {@code sink:}, else the
 * top-level {@code sink:} or {@code output:}, else standard output. One sink per section: the
 * top-level one is shared by every poller that uses it, so it is opened and closed once. Each is
 * made by the {@link SinkProvider} of its {@code type}, found with {@link ServiceLoader}: a sink
 * module on the class path is all a new type needs. Creating a sink does not connect.
 */
final class SinkSections {
  private SinkSections() {}

  /** Every provider on the class path, by type, in name order. */
  static Map<String, SinkProvider> providers() {
    Map<String, SinkProvider> byType = new TreeMap<>();
    for (SinkProvider p :
        ServiceLoader.load(SinkProvider.class, SinkSections.class.getClassLoader())) {
      SinkProvider before = byType.putIfAbsent(p.type(), p);
      if (before != null && before.getClass() != p.getClass())
        throw new ConfigException(
            "two sink providers for type "
                + p.type()
                + ": "
                + before.getClass().getName()
                + " and "
                + p.getClass().getName()
                + "; remove one from the class path");
    }
    return byType;
  }

  /** The name of every poller of {@code cfg}, in the config's order: all their sinks are made. */
  static Set<String> every(CliConfig cfg) {
    Set<String> names = new LinkedHashSet<>();
    cfg.pollers().forEach(p -> names.add(p.name()));
    return names;
  }

  /**
   * Creates the sinks of the pollers named in {@code selected}, none opened. A section that only
   * other pollers use is not made at all: {@code run --poller NAME} does not run them
   * (docs/config.md), so their sinks are neither made nor opened.
   *
   * @param selected the names of the pollers whose sinks are made; {@link #every} for all
   * @param store the engine's store ({@link SinkConfig#withStore}), or null for {@code validate}
   * @param out the command's standard output, for {@code stdout} sinks
   * @return each selected poller's sink by poller name, in the config's order; pollers sharing a
   *     section share one instance, counted
   * @throws ConfigException for an unknown type or a setting a provider refuses, as {@code
   *     FILE:LINE: poller NAME: sink.KEY: ...}
   */
  static Map<String, CountingSink> create(
      CliConfig cfg, Set<String> selected, @Nullable StateStore store, PrintStream out) {
    Map<String, SinkProvider> providers = providers();
    Map<SinkSpec, CountingSink> made = new IdentityHashMap<>();
    CountingSink standardOutput = null;
    Map<String, CountingSink> byPoller = new LinkedHashMap<>();
    for (PollerSpec p : cfg.pollers()) {
      if (!selected.contains(p.name())) continue;
      SinkSpec section = p.sink() != null ? p.sink() : cfg.sink();
      CountingSink sink;
      if (section == null) {
        if (standardOutput == null) {
          OutputSink s = OutputSink.stdout(EventFormat.ENVELOPE);
          s.writeTo(out);
          standardOutput = new CountingSink(s);
        }
        sink = standardOutput;
      } else {
        sink = made.get(section);
        if (sink == null) {
          sink =
              new CountingSink(
                  create(section, cfg, store, providers, out, keys(cfg, selected, section)));
          made.put(section, sink);
        }
      }
      byPoller.put(p.name(), sink);
    }
    return byPoller;
  }

  /**
   * The keys whose events {@code section} receives: each selected poller using it with each
   * partition (one key with the empty partition without partitions), so each destination name is
   * checked now.
   */
  private static List<PollerKey> keys(CliConfig cfg, Set<String> selected, SinkSpec section) {
    List<PollerKey> keys = new ArrayList<>();
    for (PollerSpec p : cfg.pollers()) {
      if (!selected.contains(p.name())) continue;
      SinkSpec used = p.sink() != null ? p.sink() : cfg.sink();
      if (used != section) continue;
      if (p.partitions().isEmpty()) keys.add(PollerKey.of(p.name(), ""));
      for (String partition : p.partitions()) keys.add(PollerKey.of(p.name(), partition));
    }
    return keys;
  }

  private static Sink create(
      SinkSpec spec,
      CliConfig cfg,
      @Nullable StateStore store,
      Map<String, SinkProvider> providers,
      PrintStream out,
      List<PollerKey> keys) {
    SinkConfig config =
        SinkConfig.of(spec.node(), spec.pointer(), spec.label(), cfg.dir(), spec.where())
            .withKeys(keys);
    if (store != null) config = config.withStore(store);
    String type = config.type();
    SinkProvider provider = providers.get(type);
    if (provider == null)
      throw config.error(
          "type",
          "'"
              + type
              + "' is not a sink type (known: "
              + String.join(", ", providers.keySet())
              + ")");
    Sink sink = provider.create(config);
    if (sink instanceof OutputSink o) o.writeTo(out);
    return sink;
  }
}
