package io.watukuy.spi;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An effect's state that is not per source key (docs/effects.md, "States"): its quarantine and its
 * counters of terminal failures and folded events.
 *
 * @param effect the effect's name
 * @param quarantinedAt when it was quarantined, or {@code null} when it is not
 * @param quarantineReason why (an operator's command, or the failure run that tripped it), or
 *     {@code null} when not quarantined
 * @param terminalSkips positions completed by a terminal failure ({@code ctx.fail}, a reveal of an
 *     erased subject), ever
 * @param lastTerminalError the last terminal failure's message, or {@code null}
 * @param latestCollapsed events an {@code on latest} arm folded into a later invocation, ever
 * @param updatedAt when the row last changed
 * @since 0.1
 */
public record EffectRecord(
    String effect,
    @Nullable Instant quarantinedAt,
    @Nullable String quarantineReason,
    long terminalSkips,
    @Nullable String lastTerminalError,
    long latestCollapsed,
    Instant updatedAt) {
  /**
   * Creates a record.
   *
   * @throws NullPointerException if {@code effect} or {@code updatedAt} is null
   * @throws IllegalArgumentException if a counter is negative, or only one of {@code quarantinedAt}
   *     and {@code quarantineReason} is set
   */
  public EffectRecord {
    Objects.requireNonNull(effect, "effect");
    Objects.requireNonNull(updatedAt, "updatedAt");
    if (terminalSkips < 0 || latestCollapsed < 0)
      throw new IllegalArgumentException("counters must be >= 0");
    if ((quarantinedAt == null) != (quarantineReason == null))
      throw new IllegalArgumentException("quarantinedAt and quarantineReason go together");
  }

  /**
   * Whether the effect is quarantined.
   *
   * @return true when {@link #quarantinedAt()} is set
   */
  public boolean quarantined() {
    return quarantinedAt != null;
  }
}
