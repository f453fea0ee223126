package io.watukuy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ConfigException;
import io.watukuy.Poller;
import io.watukuy.Watukuy;
import io.watukuy.store.memory.MemoryStore;
import java.util.List;
import java.util.Set;

/**
 * Every check {@code run} makes of a config before it touches the store or the output, in one
 * place, so that {@code validate} says {@code ok} only for a config {@code run} accepts (it said ok
 * for a SQLite {@code tablePrefix} that run refused): the pollers built, the folders of a SQLite
 * store and of an output file, and an engine built over the pollers, budgets and delivery options
 * (on an in-memory store, which is then closed), and the sinks made from their sections by their
 * providers (not opened). Opening a database or Redis connection, or a sink, is left to {@code
 * run}: that is the store or the destination, not the config.
 */
final class RunChecks {
  private RunChecks() {}

  /**
   * Runs the checks.
   *
   * @param sinksOf the pollers whose sinks are made ({@code run --poller} makes no sink of a poller
   *     it does not run); {@link SinkSections#every} for {@code validate}
   * @return the config's pollers
   * @throws ConfigException for the first problem, as {@code FILE:LINE: ...}
   */
  static List<Poller<JsonNode>> check(CliConfig cfg, Set<String> sinksOf) {
    List<Poller<JsonNode>> pollers = YamlPollers.build(cfg);
    try {
      Stores.checkFolder(cfg.store());
    } catch (ConfigException e) {
      throw at(cfg, cfg.storeLine(), e);
    }
    if (cfg.outputFile() != null) {
      try {
        Stores.folderOf("output file:", cfg.outputFile());
      } catch (ConfigException e) {
        throw at(cfg, cfg.outputLine(), e);
      }
    }
    // Made, never opened: an unknown type or a setting its provider refuses is a config error here.
    SinkSections.create(cfg, sinksOf, null, System.out);
    Watukuy.Builder b =
        Watukuy.builder().store(new MemoryStore()).delivery(cfg.delivery()).secrets(cfg.secrets());
    pollers.forEach(b::poller);
    cfg.budgets().forEach(b::budget);
    b.build().close();
    return pollers;
  }

  private static ConfigException at(CliConfig cfg, int line, ConfigException e) {
    return new ConfigException(cfg.file() + ":" + line + ": " + e.getMessage(), e);
  }
}
