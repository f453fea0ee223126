package io.watukuy.store.redis;

import static io.watukuy.store.redis.ScriptReplies.parseLong;
import static io.watukuy.store.redis.ScriptReplies.status;
import static io.watukuy.store.redis.ScriptReplies.text;

import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LeasedState;
import io.watukuy.spi.StateCodec;
import io.watukuy.spi.StatePatch;
import io.watukuy.store.redis.Scripts.Script;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A poll cycle's start and end for {@link RedisStore}, one Lua script each (docs/architecture.md,
 * "What an idle poll costs"): the lease taken as {@link Scripts#ACQUIRE} takes it, with the state
 * hash and whether the outbox holds a row; then, fenced as every write is, the state written and
 * the lease released, provided the stored schedule is still the one the cycle read.
 */
final class Cycles {
  private Cycles() {}

  /** ARGV: owner, now (ms), expires (ms). Reply: HELD, or OK, epoch, '1'/'0' pending, the state. */
  static final Script ACQUIRE_AND_LOAD =
      Script.keyed(
          "acquireLeaseAndLoad",
          """
          local cur = redis.call('HMGET', META, 'owner', 'expires')
          if cur[1] and tonumber(cur[2]) > tonumber(ARGV[2]) then return {'HELD'} end
          redis.call('HINCRBY', META, 'counter', 1)
          local epoch = redis.call('HGET', META, 'counter')
          redis.call('HSET', META, 'owner', ARGV[1], 'epoch', epoch, 'expires', ARGV[3])
          local pending = '0'
          if redis.call('ZCARD', OUTBOX) > 0 then pending = '1' end
          local out = {'OK', epoch, pending}
          local state = redis.call('HGETALL', STATE)
          for j = 1, #state do out[#out + 1] = state[j] end
          return out
          """);

  /**
   * ARGV: owner, epoch, '1' when no state is expected (else '0'), the expected schedule's JSON (''
   * when none), state args. Reply: LEASE_LOST, CHANGED (nothing written, lease kept), or OK and the
   * index flag of {@code writeState}.
   */
  static final Script SAVE_AND_RELEASE =
      Script.keyed(
          "saveStateAndRelease",
          """
          local lost = fence()
          if lost then return lost end
          local none = arg() == '1'
          local expected = arg()
          if none then
            if redis.call('EXISTS', STATE) == 1 then return {'CHANGED'} end
          elseif redis.call('HGET', STATE, 'schedule') ~= expected then
            return {'CHANGED'}
          end
          local indexed = writeState(stateArgs())
          redis.call('HDEL', META, 'owner', 'epoch', 'expires')
          return {'OK', indexed}
          """);

  static Optional<LeasedState> acquireAndLoad(
      ScriptRunner scripts, PollerKey key, String owner, Duration ttl, Instant now) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(now, "now");
    long expiresMs = now.plus(ttl).toEpochMilli();
    List<Object> reply =
        scripts.run(
            ACQUIRE_AND_LOAD,
            key,
            List.of(owner, Long.toString(now.toEpochMilli()), Long.toString(expiresMs)));
    if ("HELD".equals(status(reply))) {
      return Optional.empty();
    }
    scripts.expectOk(reply, ACQUIRE_AND_LOAD, key);
    Lease lease =
        new Lease(
            owner, parseLong(text(reply, 1), "lease epoch", key), Instant.ofEpochMilli(expiresMs));
    boolean pending = "1".equals(text(reply, 2));
    List<Object> fields = reply.subList(3, reply.size());
    return Optional.of(
        new LeasedState(
            lease,
            fields.isEmpty() ? null : StateHash.decode(key, ScriptReplies.fieldMap(fields)),
            pending));
  }

  static boolean saveAndRelease(
      ScriptRunner scripts,
      KeyIndex index,
      PollerKey key,
      Lease lease,
      @Nullable ScheduleState expected,
      StatePatch patch,
      Instant now) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(patch, "patch");
    Objects.requireNonNull(now, "now");
    List<String> args = new ArrayList<>(ScriptArgs.lease(lease));
    args.add(expected == null ? "1" : "0");
    // The schedule field holds StateCodec JSON, which the store wrote from an equal schedule: the
    // same text, so a text comparison is the schedule's.
    args.add(expected == null ? "" : StateCodec.scheduleToJson(expected));
    StateHash.addArgs(args, patch, now);
    List<Object> reply = scripts.run(SAVE_AND_RELEASE, key, args);
    if ("CHANGED".equals(status(reply))) {
      return false;
    }
    scripts.fenced(reply, SAVE_AND_RELEASE, key, lease);
    index.addIfNeeded(key, reply);
    return true;
  }
}
