package io.watukuy.effects;

import io.watukuy.PollerKey;
import io.watukuy.effects.internal.EffectRun;
import io.watukuy.spi.EffectCursor;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.InvocationRow;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The repartition report for one effect on one source key (docs/effects.md, "Plan"): what a deploy
 * of the declared effect would find in the store, read without starting anything.
 *
 * @param effect the effect's name
 * @param source the source key (poller, partition)
 * @param watermark the persisted watermark; 0 when the effect never ran on the key
 * @param recordedSchemes the key scheme per event type recorded with the watermark; empty when the
 *     effect never ran on the key, or after a rewind
 * @param declaredSchemes the key scheme per event type the effect declares now
 * @param movedSchemes each event type whose scheme differs, as {@code type (was → is)}
 * @param outstandingLanes distinct lanes with invocation rows above the watermark
 * @since 0.1
 */
public record EffectPlan(
    String effect,
    PollerKey source,
    long watermark,
    Map<String, String> recordedSchemes,
    Map<String, String> declaredSchemes,
    List<String> movedSchemes,
    int outstandingLanes) {
  private static final int PAGE = 1000;

  /**
   * Creates an entry; copies the collections.
   *
   * @throws NullPointerException if an argument is null
   */
  public EffectPlan {
    Objects.requireNonNull(effect, "effect");
    Objects.requireNonNull(source, "source");
    recordedSchemes = Map.copyOf(recordedSchemes);
    declaredSchemes = Map.copyOf(declaredSchemes);
    movedSchemes = List.copyOf(movedSchemes);
  }

  /**
   * Whether an arm's key scheme differs from the recorded one.
   *
   * @return true when {@link #movedSchemes()} is not empty
   */
  public boolean schemeChanged() {
    return !movedSchemes.isEmpty();
  }

  /**
   * Whether the key would start blocked: a scheme changed while lanes are outstanding. Drain under
   * the previous key first, or rewind to the watermark (docs/effects.md, "States").
   *
   * @return true when both hold
   */
  public boolean blocked() {
    return schemeChanged() && outstandingLanes > 0;
  }

  /**
   * The report for one effect over every source key its poller has.
   *
   * @param store the store the effect runs on
   * @param effect the effect as it would be deployed
   * @return one entry per source key, in key order
   * @throws io.watukuy.StoreException when the store cannot be reached
   */
  public static List<EffectPlan> of(EffectStore store, Effect<?> effect) {
    List<EffectCursor> cursors = store.loadCursors(effect.name());
    List<EffectPlan> out = new ArrayList<>();
    for (String partition : effect.source().partitions()) {
      PollerKey key = new PollerKey(effect.source().name(), partition);
      EffectCursor cursor =
          cursors.stream().filter(c -> c.source().equals(key)).findFirst().orElse(null);
      long watermark = cursor == null ? 0 : cursor.watermark();
      Map<String, String> recorded = cursor == null ? Map.of() : cursor.schemes();
      out.add(
          new EffectPlan(
              effect.name(),
              key,
              watermark,
              recorded,
              effect.schemes(),
              EffectRun.movedSchemes(recorded, effect.schemes()),
              lanesAbove(store, effect.name(), key, watermark)));
    }
    out.sort((a, b) -> a.source().compareTo(b.source()));
    return out;
  }

  private static int lanesAbove(EffectStore store, String effect, PollerKey key, long watermark) {
    Set<String> lanes = new HashSet<>();
    long after = watermark;
    while (true) {
      List<InvocationRow> rows = store.listInvocations(effect, key, after, Set.of(), PAGE);
      for (InvocationRow row : rows) lanes.add(row.lane());
      if (rows.size() < PAGE) return lanes.size();
      after = rows.get(rows.size() - 1).position();
    }
  }
}
