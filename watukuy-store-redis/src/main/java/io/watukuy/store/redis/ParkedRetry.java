package io.watukuy.store.redis;

import static io.watukuy.store.redis.ScriptReplies.status;
import static io.watukuy.store.redis.ScriptReplies.text;

import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import io.watukuy.store.redis.RowCodec.Parked;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link RedisStore#retryParked}: the parked rows are read ({@link Scripts#READ_PARKED}), checked
 * and rebuilt as outbox rows here, then written by {@link Scripts#RETRY}, which applies only if no
 * row changed in between and otherwise answers {@code CHANGED}; then it starts over, up to {@value
 * #ROUNDS} times.
 */
final class ParkedRetry {
  private ParkedRetry() {}

  /** How often the rows are read again when they changed between the read and the write. */
  static final int ROUNDS = 10;

  /**
   * Puts the parked rows back.
   *
   * @param wanted distinct ids, not empty
   * @return the number of rows found and put back
   * @throws StoreException when a poison row cannot be put back, or the rows kept changing; nothing
   *     is changed then
   */
  static int retry(ScriptRunner scripts, PollerKey key, List<String> wanted) {
    for (int round = 0; round < ROUNDS; round++) {
      List<Object> found = scripts.run(Scripts.READ_PARKED, key, wanted);
      if (found.isEmpty()) {
        return 0;
      }
      List<String> args = new ArrayList<>();
      args.add(Integer.toString(found.size() / 2));
      for (int i = 0; i + 1 < found.size(); i += 2) {
        String id = text(found, i);
        String stored = text(found, i + 1);
        args.add(id);
        args.add(stored);
        args.addAll(requeue(scripts, key, RowCodec.decodeParked(key, id, stored)));
      }
      List<Object> reply = scripts.run(Scripts.RETRY, key, args);
      if (!"CHANGED".equals(status(reply))) {
        scripts.expectOk(reply, Scripts.RETRY, key);
        return found.size() / 2;
      }
    }
    throw new StoreException(
        scripts.describe("retryParked", key)
            + " failed: the parked rows changed "
            + ROUNDS
            + " times while being retried; nothing was changed, try again",
        null);
  }

  /**
   * What the retry script puts back into the outbox for one parked row: the member and the outbox
   * row of a poison event, with the commit time it had in the outbox (its parking time when that is
   * unknown); two empty strings for an invalid item, which has no event.
   */
  private static List<String> requeue(ScriptRunner scripts, PollerKey key, Parked parked) {
    ParkedRow row = parked.row();
    if (row.kind() != ParkedKind.POISON) {
      return List.of("", "");
    }
    Long seq = row.sequence();
    String eventId = row.eventId();
    String event = row.event();
    if (seq == null || seq < 0 || eventId == null || event == null) {
      // Dropping it would lose the event for good; refuse the whole retry instead.
      throw new StoreException(
          scripts.describe("retryParked", key)
              + " refused: parked poison row "
              + row.id()
              + " has no sequence, event id or event to put back; nothing was changed",
          null);
    }
    Instant createdAt = parked.createdAt() != null ? parked.createdAt() : row.parkedAt();
    return List.of(
        RowCodec.member(seq), RowCodec.encodeOutbox(createdAt, eventId, row.orderingKey(), event));
  }
}
