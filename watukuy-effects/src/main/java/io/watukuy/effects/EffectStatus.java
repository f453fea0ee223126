package io.watukuy.effects;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What an effect looks like now (docs/effects.md, "States").
 *
 * @param effect the effect's name
 * @param state derived in precedence order ({@link EffectState#derive})
 * @param running whether this engine holds the effect's lease and runs it; when it does not, the
 *     sources are read from the store ({@link StoredStatus}), by the same rule
 * @param sources one entry per source key, in key order
 * @param terminalSkips positions completed by a terminal failure, ever
 * @param latestCollapsed events an {@code on latest} arm folded into a later invocation, ever
 *     ({@code latest_collapsed} in the admin bodies; docs/effects.md, "Latest and live arms")
 * @param lastTerminalError the last terminal failure's message, or {@code null}
 * @param quarantineReason why it is quarantined, or {@code null}
 * @since 0.1
 */
public record EffectStatus(
    String effect,
    EffectState state,
    boolean running,
    List<SourceStatus> sources,
    long terminalSkips,
    long latestCollapsed,
    @Nullable String lastTerminalError,
    @Nullable String quarantineReason) {
  /**
   * Creates a status; copies {@code sources}.
   *
   * @throws NullPointerException if {@code effect}, {@code state} or {@code sources} is null
   */
  public EffectStatus {
    Objects.requireNonNull(effect, "effect");
    Objects.requireNonNull(state, "state");
    sources = List.copyOf(sources);
  }

  /**
   * The lowest watermark over the source keys.
   *
   * @return the position; 0 with no source key
   */
  public long position() {
    return sources.stream().mapToLong(SourceStatus::position).min().orElse(0);
  }

  /**
   * The invocations running for at least {@link InFlightLane#THRESHOLD} over every source key
   * (docs/effects.md, "Position"), in key order then lowest position first.
   *
   * @return the in-flight lanes; empty when none runs that long. On an engine that does not hold
   *     the effect's lease, the running rows the store shows ({@link StoredStatus})
   */
  public List<InFlightLane> inFlightLanes() {
    return sources.stream().flatMap(s -> s.inFlightLanes().stream()).toList();
  }

  /**
   * The lag summed over the source keys.
   *
   * @return the lag
   */
  public long lag() {
    return sources.stream().mapToLong(SourceStatus::lag).sum();
  }
}
