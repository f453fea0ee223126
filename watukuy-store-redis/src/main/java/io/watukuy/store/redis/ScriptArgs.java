package io.watukuy.store.redis;

import static io.watukuy.store.redis.RowCodec.member;

import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.HttpValidator;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.ParkedRow;
import io.watukuy.spi.StatePatch;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The {@code ARGV} of the scripts in {@link Scripts} that take more than a few plain values, built
 * from the store's arguments: each method follows the layout its script's comment gives. Every
 * fenced script starts with the lease owner and epoch; rows are {@link RowCodec} text; sequences
 * are {@link RowCodec#member} members.
 */
final class ScriptArgs {
  private ScriptArgs() {}

  /** The lease owner and epoch, as every fenced script reads them first. */
  static List<String> lease(Lease lease) {
    return List.of(lease.owner(), Long.toString(lease.epoch()));
  }

  /** {@link Scripts#SAVE_STATE} (with a lease) or {@link Scripts#SAVE_STATE_UNFENCED}. */
  static List<String> saveState(@Nullable Lease lease, StatePatch patch, Instant now) {
    List<String> args = lease == null ? new ArrayList<>() : new ArrayList<>(lease(lease));
    StateHash.addArgs(args, patch, now);
    return args;
  }

  /** {@link Scripts#COMMIT}; the batch's sequences are known to be distinct and non-negative. */
  static List<String> commit(Lease lease, CommitBatch batch, Instant now) {
    List<String> args = saveState(lease, batch.statePatch(), now);
    args.add(Long.toString(now.toEpochMilli()));
    args.add(batch.log() ? "1" : "0");
    args.add(Integer.toString(batch.upserts().size()));
    for (ItemRow row : batch.upserts()) {
      args.add(row.identity());
      args.add(RowCodec.encodeItem(row));
    }
    args.add(Integer.toString(batch.deletes().size()));
    args.addAll(batch.deletes());
    args.add(Integer.toString(batch.events().size()));
    for (OutboxRow row : batch.events()) {
      args.add(member(row.sequence()));
      args.add(
          RowCodec.encodeOutbox(row.createdAt(), row.eventId(), row.orderingKey(), row.event()));
    }
    args.add(Integer.toString(batch.parked().size()));
    for (ParkedRow row : batch.parked()) {
      args.add(row.id());
      args.add(RowCodec.encodeParked(row));
      args.add(RowCodec.holdArg(row));
    }
    return args;
  }

  /** The start of a {@code ZRANGEBYLEX} after {@code sequence}: from the first when negative. */
  static String after(long sequence) {
    return sequence < 0 ? "-" : "(" + member(sequence);
  }

  /** {@link Scripts#ACK}: distinct sequences; negative ones are never stored and left out. */
  static List<String> ack(Lease lease, Collection<Long> sequences) {
    List<String> members = new ArrayList<>();
    for (long seq : new LinkedHashSet<>(sequences)) {
      if (seq >= 0) {
        members.add(member(seq));
      }
    }
    List<String> args = new ArrayList<>(lease(lease));
    args.add(Integer.toString(members.size()));
    args.addAll(members);
    return args;
  }

  /** {@link Scripts#RECORD_ATTEMPT}. */
  static List<String> recordAttempt(
      Lease lease, long sequence, String errorJson, @Nullable Instant nextAttemptAt) {
    List<String> args = new ArrayList<>(lease(lease));
    // A negative sequence is never stored: an empty member matches no row, yet the lease is
    // checked.
    args.add(sequence < 0 ? "" : member(sequence));
    args.add(RowCodec.encodeAttemptError(nextAttemptAt, errorJson));
    return args;
  }

  /** {@link Scripts#PARK}. */
  static List<String> park(Lease lease, ParkedRow row) {
    Long seq = row.sequence();
    List<String> args = new ArrayList<>(lease(lease));
    args.add(seq == null || seq < 0 ? "" : member(seq));
    args.add(row.id());
    args.add(RowCodec.encodeParked(row));
    args.add(RowCodec.holdArg(row));
    return args;
  }

  /** {@link Scripts#SET_VALIDATOR}. */
  static List<String> setValidator(Lease lease, String urlHash, HttpValidator validator) {
    List<String> args = new ArrayList<>(lease(lease));
    args.add(urlHash);
    args.add(RowCodec.encodeValidator(validator));
    return args;
  }

  /** {@link Scripts#READ_LOG}. */
  static List<String> readLog(LogRange range, int limit) {
    Long after = range.afterSequence();
    String start = after == null ? "-" : after(after);
    Instant from = range.fromTime();
    Instant to = range.toTime();
    return List.of(
        start,
        Integer.toString(limit),
        from == null ? "" : Long.toString(from.toEpochMilli()),
        to == null ? "" : Long.toString(to.toEpochMilli()));
  }

  /** {@link Scripts#PRUNE_LOG}: the exclusive cut-off. */
  static List<String> pruneLog(Instant olderThan) {
    return List.of(Long.toString(olderThan.toEpochMilli()));
  }
}
