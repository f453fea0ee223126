package io.watukuy.effects.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.internal.Json;
import io.watukuy.internal.diff.CanonicalizationException;
import io.watukuy.internal.diff.Jcs;
import io.watukuy.internal.diff.Sha256;
import org.jspecify.annotations.Nullable;

/**
 * Journal keys (docs/effects.md, "The journal"): a call is named by what it is, so a reordered or
 * edited arm still finds its recorded calls.
 */
public final class CallKeys {
  private CallKeys() {}

  /**
   * The RFC 8785 canonical JSON of a call's arguments, as Jackson writes them.
   *
   * @throws IllegalArgumentException if they cannot be written canonically, naming the call
   */
  public static String canonicalArgs(String effect, String call, @Nullable Object args) {
    try {
      JsonNode tree = Json.MAPPER.valueToTree(args);
      return Jcs.canonicalString(tree == null ? Json.MAPPER.nullNode() : tree);
    } catch (CanonicalizationException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "effect "
              + effect
              + ": the arguments of call '"
              + call
              + "' cannot be written as canonical JSON: "
              + e.getMessage(),
          e);
    }
  }

  /**
   * The journal key: SHA-256 of the name, the canonical arguments and the ordinal among identical
   * calls, each length-prefixed so no two different calls share a preimage.
   *
   * @return 64 lower-case hex digits
   */
  public static String key(String call, String canonicalArgs, int ordinal) {
    return Sha256.hex(
        call.length()
            + ":"
            + call
            + "|"
            + canonicalArgs.length()
            + ":"
            + canonicalArgs
            + "|"
            + ordinal);
  }

  /**
   * The idempotency key a journaled call sends (docs/effects.md, "HTTP calls"): SHA-256 of {@code
   * <len>:<effect>|<len>:<poller>|<len>:<partition>|<position>|<journal key>}. The journal key
   * names the call within its invocation; the effect, source key and position name the event, so
   * two events making the same request send different keys, while every re-send, retry and replay
   * of one event's call sends the same one.
   *
   * @param effect the effect's name
   * @param poller the source poller
   * @param partition the source partition, {@code ""} for an unpartitioned poller
   * @param position the event's log position
   * @param journalKey the call's journal key, {@link #key}
   * @return 64 lower-case hex digits
   */
  public static String idempotencyKey(
      String effect, String poller, String partition, long position, String journalKey) {
    return Sha256.hex(
        effect.length()
            + ":"
            + effect
            + "|"
            + poller.length()
            + ":"
            + poller
            + "|"
            + partition.length()
            + ":"
            + partition
            + "|"
            + position
            + "|"
            + journalKey);
  }
}
