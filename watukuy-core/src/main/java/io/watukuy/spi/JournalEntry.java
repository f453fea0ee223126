package io.watukuy.spi;

import io.watukuy.PollerKey;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One journaled call of an invocation (docs/effects.md, "The journal"): the recorded result of an
 * HTTP call or a named call, looked up before the call is made again so a replay never repeats a
 * completed call.
 *
 * <p>The call's arguments are never stored: {@code callKey} is the SHA-256 of the call itself (for
 * HTTP the verb, URL and body; for a named call its name and the RFC 8785 canonical JSON of its
 * arguments) and its ordinal among identical calls of the invocation. {@code label} says what the
 * call was without its data (a named call's name; an HTTP call's method, origin and path, never its
 * query or body), so an operator can see where an invocation stopped.
 *
 * @param effect the effect's name
 * @param source the key whose log the invocation read
 * @param position the invocation's log position
 * @param callKey 64 lower-case hex digits: SHA-256 of the call and its ordinal
 * @param ordinal the entry's place in the invocation, 0 for the first call recorded
 * @param label what the call was, without its arguments
 * @param result the recorded result as text, opaque to the store; a sealed document when {@code
 *     subject} is set
 * @param subject the subject whose data key sealed {@code result}, or {@code null} for a result
 *     kept as it came
 * @param createdAt when it was recorded
 * @since 0.1
 */
public record JournalEntry(
    String effect,
    PollerKey source,
    long position,
    String callKey,
    int ordinal,
    String label,
    String result,
    @Nullable String subject,
    Instant createdAt) {
  /**
   * Creates an entry.
   *
   * @throws NullPointerException if a field other than {@code subject} is null
   * @throws IllegalArgumentException if {@code callKey} is not 64 lower-case hex digits, or {@code
   *     position} is not positive, or {@code ordinal} is negative
   */
  public JournalEntry {
    Objects.requireNonNull(effect, "effect");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(callKey, "callKey");
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(result, "result");
    Objects.requireNonNull(createdAt, "createdAt");
    if (!callKey.matches("[0-9a-f]{64}"))
      throw new IllegalArgumentException("callKey must be 64 lower-case hex digits: " + callKey);
    if (position < 1) throw new IllegalArgumentException("position must be > 0: " + position);
    if (ordinal < 0) throw new IllegalArgumentException("ordinal must be >= 0: " + ordinal);
  }
}
