package io.watukuy.store.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The Lua scripts of {@link RedisStore}. Each script of a poller key receives the fifteen keys of
 * {@link KeyLayout#PARTS} as {@code KEYS[1..15]} and its arguments as strings. Every fenced script
 * first compares the stored lease owner and epoch with the caller's (as strings, so no number loses
 * precision), then checks everything else that can refuse the write, and only then writes: a
 * refused script has written nothing. Scripts reply with arrays of strings and integers only, never
 * nil or false, so a RESP3 client sees the same shapes as a RESP2 one.
 */
final class Scripts {
  private Scripts() {}

  /** A script, its source and the SHA-1 {@code EVALSHA} names it by. */
  record Script(String name, String source, String sha1) {
    static Script of(String name, String body) {
      return new Script(name, body, Scripts.sha1(body));
    }

    static Script keyed(String name, String body) {
      return of(name, PRELUDE + body);
    }
  }

  /**
   * The bodies of the renew, release and read scripts of a lease hash ({@code owner}, {@code
   * epoch}, {@code expires}), given the Lua name of the hash: a poller key's {@code META} and an
   * effect's {@code LEASE} ({@link EffectScripts}) keep their leases the same way, so the scripts
   * are written once. Acquisition differs (an effect's owner takes its own lease back with its
   * epoch) and stays with each.
   */
  static final class LeaseBodies {
    private LeaseBodies() {}

    /** ARGV: owner, epoch, expires (ms). Reply: OK, or LOST when the lease is another's. */
    static String renew(String hash) {
      return """
          local cur = redis.call('HMGET', %1$s, 'owner', 'epoch')
          if cur[1] ~= ARGV[1] or cur[2] ~= ARGV[2] then return {'LOST'} end
          redis.call('HSET', %1$s, 'expires', ARGV[3])
          return {'OK'}
          """
          .formatted(hash);
    }

    /** ARGV: owner, epoch. Clears the lease when it is still theirs; the epoch counter stays. */
    static String release(String hash) {
      return """
          local cur = redis.call('HMGET', %1$s, 'owner', 'epoch')
          if cur[1] == ARGV[1] and cur[2] == ARGV[2] then
            redis.call('HDEL', %1$s, 'owner', 'epoch', 'expires')
          end
          return {'OK'}
          """
          .formatted(hash);
    }

    /** Reply: empty, or owner, epoch, expires (ms). */
    static String get(String hash) {
      return """
          local cur = redis.call('HMGET', %1$s, 'owner', 'epoch', 'expires')
          if not cur[1] then return {} end
          return {cur[1], cur[2], cur[3]}
          """
          .formatted(hash);
    }
  }

  static final String PRELUDE =
      """
      local META, STATE, ITEMS, ITEM_IDS, OUTBOX, ROWS, ATTEMPTS, ERRORS =
        KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]
      local PARKED, HOLDS, HELD, VALIDATORS, LOG, LOG_TIME, LOG_ROWS =
        KEYS[9], KEYS[10], KEYS[11], KEYS[12], KEYS[13], KEYS[14], KEYS[15]
      local argi = 0
      local function arg() argi = argi + 1; return ARGV[argi] end
      local function count() return tonumber(arg()) end
      -- Reads owner and epoch from ARGV; a reply when the stored lease is another, else nil.
      local function fence()
        local owner = arg()
        local epoch = arg()
        local cur = redis.call('HMGET', META, 'owner', 'epoch')
        if not cur[1] then return {'LEASE_LOST', ''} end
        if cur[1] ~= owner or cur[2] ~= epoch then return {'LEASE_LOST', cur[2] or ''} end
        return nil
      end
      local function stateArgs()
        local s = {now = arg(), defaults = {}, patch = {}}
        for j = 1, count() do s.defaults[j] = arg() end
        for j = 1, count() do s.patch[j] = arg() end
        return s
      end
      -- Creates the state from the defaults when missing, applies the patch; '1' when the key
      -- is not yet marked as listed in the index.
      local function writeState(s)
        if redis.call('EXISTS', STATE) == 0 then
          redis.call('HSET', STATE, 'createdAt', s.now, unpack(s.defaults))
        end
        if #s.patch > 0 then redis.call('HSET', STATE, unpack(s.patch)) end
        redis.call('HSET', STATE, 'updatedAt', s.now)
        if redis.call('HEXISTS', STATE, 'indexed') == 1 then return '0' end
        return '1'
      end
      local function releaseHold(id)
        local hold = redis.call('HGET', HOLDS, id)
        if hold then
          redis.call('HDEL', HOLDS, id)
          if redis.call('HINCRBY', HELD, hold, -1) <= 0 then redis.call('HDEL', HELD, hold) end
        end
      end
      -- hold is '' for none, else '+' followed by the ordering key.
      local function putParked(id, value, hold)
        releaseHold(id)
        redis.call('HSET', PARKED, id, value)
        if hold ~= '' then
          local k = string.sub(hold, 2)
          redis.call('HSET', HOLDS, id, k)
          redis.call('HINCRBY', HELD, k, 1)
        end
      end
      local function dropOutbox(m)
        redis.call('ZREM', OUTBOX, m)
        redis.call('HDEL', ROWS, m)
        redis.call('HDEL', ATTEMPTS, m)
        redis.call('HDEL', ERRORS, m)
      end
      -- The first field of an outbox row (its creation time) in the row's own encoding.
      local function firstField(v)
        local len, pos = string.match(v, '^(%d+):()')
        if not len then return '~' end
        return string.sub(v, 1, pos + tonumber(len) - 1)
      end
      """;

  // ---- leases

  /** ARGV: owner, now (ms), expires (ms). */
  static final Script ACQUIRE =
      Script.keyed(
          "acquireLease",
          """
          local cur = redis.call('HMGET', META, 'owner', 'expires')
          if cur[1] and tonumber(cur[2]) > tonumber(ARGV[2]) then return {'HELD'} end
          redis.call('HINCRBY', META, 'counter', 1)
          local epoch = redis.call('HGET', META, 'counter')
          redis.call('HSET', META, 'owner', ARGV[1], 'epoch', epoch, 'expires', ARGV[3])
          return {'OK', epoch}
          """);

  /** ARGV: owner, epoch, expires (ms). */
  static final Script RENEW = Script.keyed("renewLease", LeaseBodies.renew("META"));

  /** ARGV: owner, epoch. The epoch counter stays. */
  static final Script RELEASE = Script.keyed("releaseLease", LeaseBodies.release("META"));

  /** Reply: empty, or owner, epoch, expires (ms). */
  static final Script GET_LEASE = Script.keyed("getLease", LeaseBodies.get("META"));

  // ---- state

  /** Reply: the state hash as field, value pairs. */
  static final Script LOAD_STATE =
      Script.keyed("loadState", "return redis.call('HGETALL', STATE)\n");

  /** ARGV: owner, epoch, state args. */
  static final Script SAVE_STATE =
      Script.keyed(
          "saveState",
          """
          local lost = fence()
          if lost then return lost end
          return {'OK', writeState(stateArgs())}
          """);

  /** ARGV: state args. */
  static final Script SAVE_STATE_UNFENCED =
      Script.keyed("saveStateUnfenced", "return {'OK', writeState(stateArgs())}\n");

  static final Script STATE_EXISTS =
      Script.keyed("listKeys", "return {redis.call('EXISTS', STATE)}\n");

  static final Script MARK_INDEXED =
      Script.keyed(
          "index",
          """
          if redis.call('EXISTS', STATE) == 1 then redis.call('HSET', STATE, 'indexed', '1') end
          return {'OK'}
          """);

  static final Script UNMARK_INDEXED =
      Script.keyed("deleteKey", "redis.call('HDEL', STATE, 'indexed')\nreturn {'OK'}\n");

  /** Removes every key but the lease hash, and the lease fields but the epoch counter. */
  static final Script DELETE_KEY =
      Script.keyed(
          "deleteKey",
          """
          for j = 2, #KEYS do redis.call('DEL', KEYS[j]) end
          redis.call('HDEL', META, 'owner', 'epoch', 'expires')
          return {'OK'}
          """);

  static final Script CLEAR_ITEMS =
      Script.keyed("clearItems", "redis.call('DEL', ITEMS, ITEM_IDS)\nreturn {'OK'}\n");

  // ---- items

  /** ARGV: identities. Reply: identity, row pairs for the stored ones. */
  static final Script LOAD_VERSIONS =
      Script.keyed(
          "loadVersions",
          """
          local out = {}
          for j = 1, #ARGV do
            local v = redis.call('HGET', ITEMS, ARGV[j])
            if v then out[#out + 1] = ARGV[j]; out[#out + 1] = v end
          end
          return out
          """);

  /** ARGV: lex range start, batch size. */
  static final Script STREAM_IDENTITIES =
      Script.keyed(
          "streamIdentities",
          "return redis.call('ZRANGEBYLEX', ITEM_IDS, ARGV[1], '+', 'LIMIT', 0, ARGV[2])\n");

  static final Script COUNT_ITEMS =
      Script.keyed("countItems", "return {redis.call('HLEN', ITEMS)}\n");

  // ---- commit and outbox

  /**
   * ARGV: owner, epoch, state args, now (ms), log '1' or '0', n upserts then (identity, row)*, n
   * deletes then identity*, n events then (member, row)*, n parked then (id, row, hold)*.
   */
  static final Script COMMIT =
      Script.keyed(
          "commitPoll",
          """
          local lost = fence()
          if lost then return lost end
          local s = stateArgs()
          local nowMs = arg()
          local logged = arg() == '1'
          local upserts = {}
          for j = 1, count() * 2 do upserts[j] = arg() end
          local deletes = {}
          for j = 1, count() do deletes[j] = arg() end
          local events = {}
          for j = 1, count() * 2 do events[j] = arg() end
          local parked = {}
          for j = 1, count() * 3 do parked[j] = arg() end
          for j = 1, #events, 2 do
            if redis.call('HEXISTS', ROWS, events[j]) == 1 then
              return {'SEQUENCE_TAKEN', events[j]}
            end
          end
          local needsIndex = writeState(s)
          for j = 1, #upserts, 2 do
            redis.call('HSET', ITEMS, upserts[j], upserts[j + 1])
            redis.call('ZADD', ITEM_IDS, 0, upserts[j])
          end
          for j = 1, #deletes do
            redis.call('HDEL', ITEMS, deletes[j])
            redis.call('ZREM', ITEM_IDS, deletes[j])
          end
          for j = 1, #events, 2 do
            local m, v = events[j], events[j + 1]
            redis.call('ZADD', OUTBOX, 0, m)
            redis.call('HSET', ROWS, m, v)
            redis.call('HDEL', ATTEMPTS, m)
            redis.call('HDEL', ERRORS, m)
            if logged then
              redis.call('ZADD', LOG, 0, m)
              redis.call('ZADD', LOG_TIME, nowMs, m)
              redis.call('HSET', LOG_ROWS, m, v)
            end
          end
          for j = 1, #parked, 3 do putParked(parked[j], '~' .. parked[j + 1], parked[j + 2]) end
          return {'OK', needsIndex}
          """);

  /** ARGV: lex range start, limit. Reply: (member, row, attempts, errors)*. */
  static final Script LOAD_PENDING =
      Script.keyed(
          "loadPending",
          """
          local out = {}
          local ms = redis.call('ZRANGEBYLEX', OUTBOX, ARGV[1], '+', 'LIMIT', 0, ARGV[2])
          for _, m in ipairs(ms) do
            out[#out + 1] = m
            out[#out + 1] = redis.call('HGET', ROWS, m) or ''
            out[#out + 1] = redis.call('HGET', ATTEMPTS, m) or '0'
            out[#out + 1] = redis.call('HGET', ERRORS, m) or ''
          end
          return out
          """);

  static final Script COUNT_PENDING =
      Script.keyed("countPending", "return {redis.call('ZCARD', OUTBOX)}\n");

  /** ARGV: owner, epoch, n, members. */
  static final Script ACK =
      Script.keyed(
          "ackEvents",
          """
          local lost = fence()
          if lost then return lost end
          for j = 1, count() do dropOutbox(arg()) end
          return {'OK'}
          """);

  /** ARGV: owner, epoch, member, errors row. */
  static final Script RECORD_ATTEMPT =
      Script.keyed(
          "recordAttempt",
          """
          local lost = fence()
          if lost then return lost end
          local m = arg()
          local v = arg()
          if redis.call('HEXISTS', ROWS, m) == 1 then
            redis.call('HINCRBY', ATTEMPTS, m, 1)
            redis.call('HSET', ERRORS, m, v)
          end
          return {'OK'}
          """);

  /** ARGV: owner, epoch, member or '', id, row without its first field, hold. */
  static final Script PARK =
      Script.keyed(
          "parkEvent",
          """
          local lost = fence()
          if lost then return lost end
          local m = arg()
          local id = arg()
          local rest = arg()
          local hold = arg()
          local created = '~'
          -- A row parked again keeps the commit time its event had in the outbox.
          local earlier = redis.call('HGET', PARKED, id)
          if earlier then created = firstField(earlier) end
          if m ~= '' then
            local row = redis.call('HGET', ROWS, m)
            if row then created = firstField(row) end
            dropOutbox(m)
          end
          putParked(id, created .. rest, hold)
          return {'OK'}
          """);

  static final Script LIST_PARKED =
      Script.keyed("listParked", "return redis.call('HGETALL', PARKED)\n");

  static final Script COUNT_PARKED =
      Script.keyed("countParked", "return {redis.call('HLEN', PARKED)}\n");

  /** ARGV: ids. Reply: id, row pairs of the parked ones. */
  static final Script READ_PARKED =
      Script.keyed(
          "retryParked",
          """
          local out = {}
          for j = 1, #ARGV do
            local v = redis.call('HGET', PARKED, ARGV[j])
            if v then out[#out + 1] = ARGV[j]; out[#out + 1] = v end
          end
          return out
          """);

  /**
   * ARGV: n, then (id, the parked row as read, member or '', outbox row)*. Applies only when every
   * row is still as read (compare and set); otherwise replies CHANGED and writes nothing.
   */
  static final Script RETRY =
      Script.keyed(
          "retryParked",
          """
          local items = {}
          for j = 1, count() * 4 do items[j] = arg() end
          for j = 1, #items, 4 do
            if redis.call('HGET', PARKED, items[j]) ~= items[j + 1] then
              return {'CHANGED', items[j]}
            end
          end
          for j = 1, #items, 4 do
            local m = items[j + 2]
            if m ~= '' then
              redis.call('ZADD', OUTBOX, 0, m)
              redis.call('HSET', ROWS, m, items[j + 3])
              redis.call('HDEL', ATTEMPTS, m)
              redis.call('HDEL', ERRORS, m)
            end
            releaseHold(items[j])
            redis.call('HDEL', PARKED, items[j])
          end
          return {'OK'}
          """);

  /** ARGV: distinct ids. Reply: the number removed. */
  static final Script DISCARD =
      Script.keyed(
          "discardParked",
          """
          local removed = 0
          for j = 1, #ARGV do
            if redis.call('HEXISTS', PARKED, ARGV[j]) == 1 then
              releaseHold(ARGV[j])
              redis.call('HDEL', PARKED, ARGV[j])
              removed = removed + 1
            end
          end
          return {removed}
          """);

  static final Script HELD_KEYS = Script.keyed("heldKeys", "return redis.call('HKEYS', HELD)\n");

  // ---- validators

  /** ARGV: url hash. Reply: empty, or the row. */
  static final Script GET_VALIDATOR =
      Script.keyed(
          "getValidator",
          """
          local v = redis.call('HGET', VALIDATORS, ARGV[1])
          if v then return {v} end
          return {}
          """);

  /** ARGV: owner, epoch, url hash, row. */
  static final Script SET_VALIDATOR =
      Script.keyed(
          "setValidator",
          """
          local lost = fence()
          if lost then return lost end
          local h = arg()
          local v = arg()
          redis.call('HSET', VALIDATORS, h, v)
          return {'OK'}
          """);

  // ---- log

  /**
   * ARGV: lex range start, limit, from (ms) or '', to (ms) or ''. Reply: (member, created at (ms,
   * as Redis prints the score), row)*.
   */
  static final Script READ_LOG =
      Script.keyed(
          "readLog",
          """
          local limit = tonumber(ARGV[2])
          local from, to = nil, nil
          if ARGV[3] ~= '' then from = tonumber(ARGV[3]) end
          if ARGV[4] ~= '' then to = tonumber(ARGV[4]) end
          local out, found, start = {}, 0, ARGV[1]
          while found < limit do
            local ms = redis.call('ZRANGEBYLEX', LOG, start, '+', 'LIMIT', 0, 500)
            if #ms == 0 then break end
            for _, m in ipairs(ms) do
              local at = redis.call('ZSCORE', LOG_TIME, m)
              local t = tonumber(at)
              if (from == nil or t >= from) and (to == nil or t < to) then
                out[#out + 1] = m
                out[#out + 1] = at
                out[#out + 1] = redis.call('HGET', LOG_ROWS, m) or ''
                found = found + 1
                if found >= limit then break end
              end
            end
            start = '(' .. ms[#ms]
          end
          return out
          """);

  /** ARGV: cut-off (ms), exclusive. Reply: the number removed. */
  /**
   * ARGV: cut-off (ms, exclusive). KEYS[16]: the source's mirror of its effects' watermarks ({@link
   * EffectScripts#MIRROR_OF}). Deletes the logged events older than the cut-off whose sequence is
   * at or below the lowest mirrored watermark, so an effect still reads every event above its
   * cursor (docs/stores.md, "EffectStore"). Reply: the number deleted.
   */
  static final Script PRUNE_LOG =
      Script.keyed(
          "pruneLog",
          EffectScripts.MIRROR_OF
              + """
              local floor = nil
              for _, v in ipairs(redis.call('HVALS', mirrorOf(KEYS[16]))) do
                local m = string.sub(v, 1, 19)
                if not floor or m < floor then floor = m end
              end
              local ms = redis.call('ZRANGEBYSCORE', LOG_TIME, '-inf', '(' .. ARGV[1])
              local n = 0
              for _, m in ipairs(ms) do
                if not floor or m <= floor then
                  redis.call('ZREM', LOG, m)
                  redis.call('ZREM', LOG_TIME, m)
                  redis.call('HDEL', LOG_ROWS, m)
                  n = n + 1
                end
              end
              return {n}
              """);

  // ---- the index of keys with state (KEYS[1] is the index set)

  static final Script INDEX_ADD =
      Script.of("index", "redis.call('SADD', KEYS[1], ARGV[1])\nreturn {'OK'}\n");

  static final Script INDEX_REMOVE =
      Script.of("deleteKey", "redis.call('SREM', KEYS[1], ARGV[1])\nreturn {'OK'}\n");

  static final Script INDEX_MEMBERS =
      Script.of("listKeys", "return redis.call('SMEMBERS', KEYS[1])\n");

  static String sha1(String source) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-1");
      return HexFormat.of().formatHex(md.digest(source.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is part of every Java platform", e);
    }
  }
}
