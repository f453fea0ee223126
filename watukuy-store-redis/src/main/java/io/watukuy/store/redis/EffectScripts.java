package io.watukuy.store.redis;

import io.watukuy.store.redis.Scripts.LeaseBodies;
import io.watukuy.store.redis.Scripts.Script;

/**
 * The Lua scripts of the effect tables ({@link EffectTables}). A script of one effect receives the
 * keys of {@link EffectLayout#keys(String)} as {@code KEYS[1..5]}, and one that is also about a
 * source key the five keys of that source after them ({@code KEYS[6..10]}), all with the effect's
 * hash tag. Every fenced script first compares the stored lease owner and epoch with the caller's
 * (as strings), then checks what else can refuse the write, and only then writes. Positions are
 * 19-digit members ({@link RowCodec#member}) compared as text, so every {@code long} orders
 * exactly. Replies are arrays of strings and integers only.
 */
final class EffectScripts {
  private EffectScripts() {}

  static final String PRELUDE =
      """
      local LEASE, RECORD, CURSORS, SOURCES, WRITTEN = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
      local INVOCATIONS, POSITIONS, COMPLETED, JOURNAL, CALLS =
        KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10]
      -- A reply when the stored lease is not (owner, epoch), else nil.
      local function fence(owner, epoch)
        local cur = redis.call('HMGET', LEASE, 'owner', 'epoch')
        if not cur[1] then return {'LEASE_LOST', ''} end
        if cur[1] ~= owner or cur[2] ~= epoch then return {'LEASE_LOST', cur[2]} end
        return nil
      end
      -- '1' while the effect is not yet in the set of effects (listEffects).
      local function unlisted()
        if redis.call('HEXISTS', LEASE, 'listed') == 1 then return '0' end
        return '1'
      end
      -- Whether the source's mirror (lowestWatermark, pruneLog) is known to sit at or below
      -- watermark member wm, so the cursor may be written: lowered is '1' when the caller has just
      -- set it there (then the source is marked in SOURCES); else it holds when the cursor exists
      -- and does not go down, since the mirror never sits above the cursor.
      local function mirrorBelow(source, wm, lowered)
        if lowered == '1' then
          redis.call('SADD', SOURCES, source)
          return true
        end
        if redis.call('SISMEMBER', SOURCES, source) == 0 then return false end
        local old = redis.call('HGET', CURSORS, source)
        return old ~= nil and old ~= false and wm >= string.sub(old, 1, 19)
      end
      -- '1' when a cursor at wm lies above the stored one (so the mirror may rise), else '0'.
      local function rises(source, wm)
        local old = redis.call('HGET', CURSORS, source)
        if old and wm <= string.sub(old, 1, 19) then return '0' end
        return '1'
      end
      -- Deletes the journal of the positions whose call members lie in [from, to].
      local function dropCalls(from, to)
        local calls = redis.call('ZRANGEBYLEX', CALLS, from, to)
        for _, c in ipairs(calls) do
          redis.call('HDEL', JOURNAL, string.sub(c, 1, 19) .. ':' .. string.sub(c, -64))
        end
        if #calls > 0 then redis.call('ZREMRANGEBYLEX', CALLS, from, to) end
      end
      local function dropInvocation(m)
        redis.call('HDEL', INVOCATIONS, m)
        redis.call('ZREM', POSITIONS, m)
        redis.call('ZREM', COMPLETED, m)
        dropCalls('[' .. m .. ':', '(' .. m .. ';')
      end
      """;

  static Script of(String name, String body) {
    return Script.of(name, PRELUDE + body);
  }

  // ---- lease (KEYS[1..5])

  /** ARGV: owner, now (ms), expires (ms). Reply: HELD, or OK, epoch, unlisted. */
  static final Script ACQUIRE =
      of(
          "acquireEffectLease",
          """
          local cur = redis.call('HMGET', LEASE, 'owner', 'epoch', 'expires')
          if cur[1] and cur[1] ~= ARGV[1] and tonumber(cur[3]) > tonumber(ARGV[2]) then
            return {'HELD'}
          end
          local epoch = cur[2]
          if cur[1] ~= ARGV[1] then
            redis.call('HINCRBY', LEASE, 'counter', 1)
            epoch = redis.call('HGET', LEASE, 'counter')
          end
          redis.call('HSET', LEASE, 'owner', ARGV[1], 'epoch', epoch, 'expires', ARGV[3])
          return {'OK', epoch, unlisted()}
          """);

  /** ARGV: owner, epoch, expires (ms). Reply: OK or LOST. */
  static final Script RENEW = of("renewEffectLease", LeaseBodies.renew("LEASE"));

  /** ARGV: owner, epoch. The epoch counter stays. */
  static final Script RELEASE = of("releaseEffectLease", LeaseBodies.release("LEASE"));

  /** Reply: empty, or owner, epoch, expires (ms). */
  static final Script GET_LEASE = of("effectLease", LeaseBodies.get("LEASE"));

  // ---- effect-wide state (KEYS[1..5])

  /** Reply: 1 when the effect has a lease, a record or a cursor, else 0. */
  static final Script EXISTS =
      of(
          "listEffects",
          """
          if redis.call('HEXISTS', LEASE, 'owner') == 1 or redis.call('EXISTS', RECORD) == 1
            or redis.call('HLEN', CURSORS) > 0 then return {1} end
          return {0}
          """);

  static final Script MARK_LISTED =
      of("listEffects", "redis.call('HSET', LEASE, 'listed', '1')\nreturn {'OK'}\n");

  /** Reply: the record hash as field, value pairs. */
  static final Script LOAD_RECORD = of("loadEffect", "return redis.call('HGETALL', RECORD)\n");

  /**
   * ARGV: '1' to quarantine or '0' to release, now (ms), reason. A quarantine in place keeps its
   * time and reason; a release of an effect that is not quarantined writes nothing. Reply: OK,
   * unlisted.
   */
  static final Script SET_QUARANTINE =
      of(
          "setQuarantine",
          """
          if ARGV[1] == '0' then
            if redis.call('HEXISTS', RECORD, 'quarantinedAt') == 1 then
              redis.call('HDEL', RECORD, 'quarantinedAt', 'quarantineReason')
              redis.call('HSET', RECORD, 'updatedAt', ARGV[2])
            end
            return {'OK', '0'}
          end
          if redis.call('HEXISTS', RECORD, 'quarantinedAt') == 0 then
            redis.call('HINCRBY', RECORD, 'terminalSkips', 0)
            redis.call('HINCRBY', RECORD, 'latestCollapsed', 0)
            redis.call('HSET', RECORD, 'quarantinedAt', ARGV[2], 'quarantineReason', ARGV[3],
              'updatedAt', ARGV[2])
          end
          return {'OK', unlisted()}
          """);

  /**
   * ARGV: terminal skips, latest collapsed, now (ms), '1' and the last terminal error, or '0'.
   * Reply: OK, unlisted.
   */
  static final Script ADD_COUNTS =
      of(
          "addCounts",
          """
          redis.call('HINCRBY', RECORD, 'terminalSkips', ARGV[1])
          redis.call('HINCRBY', RECORD, 'latestCollapsed', ARGV[2])
          if ARGV[4] == '1' then redis.call('HSET', RECORD, 'lastTerminalError', ARGV[5]) end
          redis.call('HSET', RECORD, 'updatedAt', ARGV[3])
          return {'OK', unlisted()}
          """);

  // ---- cursors (KEYS[1..5])

  /** Reply: source tag, cursor pairs. */
  static final Script LOAD_CURSORS = of("loadCursors", "return redis.call('HGETALL', CURSORS)\n");

  /**
   * ARGV: owner, epoch, source tag, cursor, '1' when the source's mirror was just set at or below
   * the cursor's watermark. Reply: LEASE_LOST, INDEX (the mirror must be lowered or registered
   * first; nothing written), or OK, unlisted, '1' when the watermark rose (the mirror follows).
   */
  static final Script SAVE_CURSOR =
      of(
          "saveCursor",
          """
          local lost = fence(ARGV[1], ARGV[2])
          if lost then return lost end
          local wm = string.sub(ARGV[4], 1, 19)
          if not mirrorBelow(ARGV[3], wm, ARGV[5]) then return {'INDEX'} end
          local up = rises(ARGV[3], wm)
          redis.call('HSET', CURSORS, ARGV[3], ARGV[4])
          return {'OK', unlisted(), up}
          """);

  /** ARGV: source tag. Reply: the cursor's watermark member, or empty. */
  static final Script WATERMARK =
      of(
          "lowestWatermark",
          """
          local c = redis.call('HGET', CURSORS, ARGV[1])
          if not c then return {} end
          return {string.sub(c, 1, 19)}
          """);

  // ---- invocations (KEYS[1..10])

  /**
   * ARGV: owner, epoch, position member, status, skip requested ('1' or '0'), updated at (ms), the
   * rest of the row, source tag. A stored skip request stays. Completed rows are also scored by
   * their update time in COMPLETED, which the sweep walks; the source is marked in WRITTEN.
   */
  static final Script SAVE_INVOCATION =
      of(
          "saveInvocation",
          """
          local lost = fence(ARGV[1], ARGV[2])
          if lost then return lost end
          local m, status, skip, updated = ARGV[3], ARGV[4], ARGV[5], ARGV[6]
          local old = redis.call('HGET', INVOCATIONS, m)
          if old and string.match(old, '^%u+ (%d) ') == '1' then skip = '1' end
          redis.call('HSET', INVOCATIONS, m, status .. ' ' .. skip .. ' ' .. updated .. ' ' .. ARGV[7])
          redis.call('ZADD', POSITIONS, 0, m)
          redis.call('SADD', WRITTEN, ARGV[8])
          if status == 'DONE' or status == 'TERMINAL' or status == 'SKIPPED' then
            redis.call('ZADD', COMPLETED, updated, m)
          else
            redis.call('ZREM', COMPLETED, m)
          end
          return {'OK'}
          """);

  /** ARGV: position member. Reply: empty, or the row. */
  static final Script LOAD_INVOCATION =
      of(
          "loadInvocation",
          """
          local v = redis.call('HGET', INVOCATIONS, ARGV[1])
          if v then return {v} end
          return {}
          """);

  /**
   * ARGV: lex range start, limit, the wanted statuses each between spaces (' FAILED DONE ') or ''
   * for all. Reply: (position member, row)* in position order.
   */
  static final Script LIST_INVOCATIONS =
      of(
          "listInvocations",
          """
          local limit, want = tonumber(ARGV[2]), ARGV[3]
          local out, found, start = {}, 0, ARGV[1]
          while found < limit do
            local ms = redis.call('ZRANGEBYLEX', POSITIONS, start, '+', 'LIMIT', 0, 500)
            if #ms == 0 then break end
            for _, m in ipairs(ms) do
              local v = redis.call('HGET', INVOCATIONS, m)
              if v and (want == '' or string.find(want, ' ' .. string.match(v, '^%u+') .. ' ', 1, true)) then
                out[#out + 1] = m
                out[#out + 1] = v
                found = found + 1
                if found >= limit then break end
              end
            end
            start = '(' .. ms[#ms]
          end
          return out
          """);

  /** ARGV: lex range start. Reply: the number of rows above. */
  static final Script COUNT_INVOCATIONS =
      of("countInvocations", "return {redis.call('ZLEXCOUNT', POSITIONS, ARGV[1], '+')}\n");

  /**
   * ARGV: position member, now (ms). Reply: 1 when the row is FAILED and now asks to skip, or 0.
   */
  static final Script REQUEST_SKIP =
      of(
          "requestSkip",
          """
          local v = redis.call('HGET', INVOCATIONS, ARGV[1])
          if not v then return {0} end
          local status, rest = string.match(v, '^(%u+) %d %-?%d+ ()')
          if status ~= 'FAILED' then return {0} end
          redis.call('HSET', INVOCATIONS, ARGV[1],
            'FAILED 1 ' .. ARGV[2] .. ' ' .. string.sub(v, rest))
          return {1}
          """);

  // ---- journal (KEYS[1..10])

  /** ARGV: field (position member ':' call key). Reply: empty, or the entry. */
  static final Script LOAD_JOURNAL_ENTRY =
      of(
          "loadJournalEntry",
          """
          local v = redis.call('HGET', JOURNAL, ARGV[1])
          if v then return {v} end
          return {}
          """);

  /**
   * ARGV: field, call member (position ':' ordinal ':' call key), entry, source tag (marked in
   * WRITTEN). Reply: 1 written, 0 not.
   */
  static final Script APPEND_JOURNAL =
      of(
          "appendJournalEntry",
          """
          if redis.call('HSETNX', JOURNAL, ARGV[1], ARGV[3]) == 0 then return {0} end
          redis.call('ZADD', CALLS, 0, ARGV[2])
          redis.call('SADD', WRITTEN, ARGV[4])
          return {1}
          """);

  /** ARGV: position member, offset, limit. Reply: (call key, entry)* in ordinal order. */
  static final Script LIST_JOURNAL =
      of(
          "listJournal",
          """
          local m = ARGV[1]
          local calls = redis.call('ZRANGEBYLEX', CALLS, '[' .. m .. ':', '(' .. m .. ';',
            'LIMIT', ARGV[2], ARGV[3])
          local out = {}
          for _, c in ipairs(calls) do
            local key = string.sub(c, -64)
            local v = redis.call('HGET', JOURNAL, m .. ':' .. key)
            if v then out[#out + 1] = key; out[#out + 1] = v end
          end
          return out
          """);

  // ---- maintenance (KEYS[1..10])

  /**
   * ARGV: owner, epoch, source tag, position member, position as decimal, '1' to lower the live
   * boundary, the cursor's tail (update time and no schemes), '1' when the source's mirror was just
   * set at or below the position. Deletes the rows above the position and the journal of every
   * position above it, then writes the cursor. Reply: LEASE_LOST, INDEX (the mirror must be lowered
   * first; nothing written), or OK, rows deleted, unlisted, '1' when the watermark rose.
   */
  static final Script REWIND =
      of(
          "rewind",
          """
          local lost = fence(ARGV[1], ARGV[2])
          if lost then return lost end
          local pm = ARGV[4]
          if not mirrorBelow(ARGV[3], pm, ARGV[8]) then return {'INDEX'} end
          local up = rises(ARGV[3], pm)
          local rows = redis.call('ZRANGEBYLEX', POSITIONS, '(' .. pm, '+')
          for _, m in ipairs(rows) do
            redis.call('HDEL', INVOCATIONS, m)
            redis.call('ZREM', COMPLETED, m)
          end
          if #rows > 0 then redis.call('ZREMRANGEBYLEX', POSITIONS, '(' .. pm, '+') end
          dropCalls('(' .. pm .. ';', '+')
          local boundary = ''
          local old = redis.call('HGET', CURSORS, ARGV[3])
          if old then boundary = string.match(old, '^%d+|(%-?%d*)|') end
          if ARGV[6] == '1' then
            if boundary == '' or (string.sub(boundary, 1, 1) ~= '-'
                and string.rep('0', 19 - #boundary) .. boundary > pm) then
              boundary = ARGV[5]
            end
          end
          redis.call('HSET', CURSORS, ARGV[3], pm .. '|' .. boundary .. '|' .. ARGV[7])
          return {'OK', #rows, unlisted(), up}
          """);

  /**
   * ARGV: source tag, cut-off (ms, exclusive), limit. Walks the completed rows older than the
   * cut-off, oldest first, and deletes those at or below the stored watermark with their journal.
   * Reply: the number deleted.
   */
  static final Script SWEEP =
      of(
          "sweepInvocations",
          """
          local c = redis.call('HGET', CURSORS, ARGV[1])
          if not c then return {0} end
          local wm = string.sub(c, 1, 19)
          local limit = tonumber(ARGV[3])
          local deleted, passed = 0, 0
          while deleted < limit do
            local ms = redis.call('ZRANGEBYSCORE', COMPLETED, '-inf', '(' .. ARGV[2],
              'LIMIT', passed, 500)
            if #ms == 0 then break end
            for _, m in ipairs(ms) do
              if deleted < limit and m <= wm then
                dropInvocation(m)
                deleted = deleted + 1
              else
                passed = passed + 1
              end
            end
          end
          return {deleted}
          """);

  // ---- forget (forgetEffect)

  /**
   * Reply: the source tags the effect has a cursor on, a mirror in, or wrote a row or a journal
   * entry on, each once.
   */
  static final Script FORGET_SOURCES =
      of(
          "forgetEffect",
          """
          local out, seen = {}, {}
          for _, t in ipairs(redis.call('HKEYS', CURSORS)) do
            if not seen[t] then seen[t] = true; out[#out + 1] = t end
          end
          for _, t in ipairs(redis.call('SMEMBERS', SOURCES)) do
            if not seen[t] then seen[t] = true; out[#out + 1] = t end
          end
          for _, t in ipairs(redis.call('SMEMBERS', WRITTEN)) do
            if not seen[t] then seen[t] = true; out[#out + 1] = t end
          end
          return out
          """);

  /**
   * KEYS[1..10]. ARGV: source tag. Deletes the effect's rows and journal on the source and its
   * cursor there; the source stays in SOURCES and WRITTEN until {@link #FORGET} (its mirror goes
   * first). Reply: the number of keys and cursors deleted.
   */
  static final Script FORGET_SOURCE =
      of(
          "forgetEffect",
          """
          local n = redis.call('DEL', INVOCATIONS, POSITIONS, COMPLETED, JOURNAL, CALLS)
          return {n + redis.call('HDEL', CURSORS, ARGV[1])}
          """);

  /**
   * Deletes the record, the cursors, the sets of sources and the lease, keeping the epoch counter
   * so later epochs stay higher, and the listed mark, so a later write lists the effect again.
   * Reply: 1 when a lease, a record or a cursor was there, else 0.
   */
  static final Script FORGET =
      of(
          "forgetEffect",
          """
          local held = redis.call('HEXISTS', LEASE, 'owner') == 1
            or redis.call('EXISTS', RECORD) == 1 or redis.call('HLEN', CURSORS) > 0
          redis.call('DEL', RECORD, CURSORS, SOURCES, WRITTEN)
          redis.call('HDEL', LEASE, 'owner', 'epoch', 'expires', 'listed')
          if held then return {1} end
          return {0}
          """);

  // ---- one-key sets and hashes without a hash tag (KEYS[1] only)

  static final Script SET_ADD =
      Script.of("index", "redis.call('SADD', KEYS[1], ARGV[1])\nreturn {'OK'}\n");

  static final Script SET_REMOVE =
      Script.of("unindex", "redis.call('SREM', KEYS[1], ARGV[1])\nreturn {'OK'}\n");

  static final Script SET_MEMBERS =
      Script.of("members", "return redis.call('SMEMBERS', KEYS[1])\n");

  // ---- a source's mirror of its effects' watermarks (KEYS[1], in the source's slot)

  /**
   * Lua that defines {@code mirrorOf(key)}: upgrades a source's mirror written as a set of effect
   * names (before the mirror held watermarks) to the hash, each effect at watermark 0, which keeps
   * the whole log until that effect's next cursor raises it; then returns the key. A mirror value
   * is the 19-digit watermark member, a space and the lease epoch that wrote it.
   */
  static final String MIRROR_OF =
      """
      local function mirrorOf(key)
        if redis.call('TYPE', key).ok == 'set' then
          local names = redis.call('SMEMBERS', key)
          redis.call('DEL', key)
          for _, n in ipairs(names) do
            redis.call('HSET', key, n, '0000000000000000000 0')
          end
        end
        return key
      end
      -- Whether decimal epoch a is above b.
      local function above(a, b)
        return #a > #b or (#a == #b and a > b)
      end
      """;

  /** Reply: the names of the effects mirrored on the source. */
  static final Script MIRRORED =
      Script.of("lowestWatermark", MIRROR_OF + "return redis.call('HKEYS', mirrorOf(KEYS[1]))\n");

  /**
   * ARGV: effect, watermark member, lease epoch. Registers the effect at the watermark, or lowers
   * its mirror to it; the mirror keeps the higher epoch. Lowering is always safe (the log keeps
   * more), so it is not fenced. Reply: OK.
   */
  static final Script MIRROR_LOWER =
      Script.of(
          "mirrorWatermark",
          MIRROR_OF
              + """
              local mirror = mirrorOf(KEYS[1])
              local wm, epoch = ARGV[2], ARGV[3]
              local cur = redis.call('HGET', mirror, ARGV[1])
              if cur then
                local m, e = string.match(cur, '^(%d+) (%d+)$')
                if m < wm then wm = m end
                if above(e, epoch) then epoch = e end
              end
              redis.call('HSET', mirror, ARGV[1], wm .. ' ' .. epoch)
              return {'OK'}
              """);

  /**
   * ARGV: effect, watermark member, lease epoch. Raises the effect's mirror to the watermark after
   * its cursor got there, unless the mirror is already as high or a later lease wrote it (a stale
   * holder must not raise it above a newer holder's rewind). Reply: 1 raised, 0 not.
   */
  static final Script MIRROR_RAISE =
      Script.of(
          "mirrorWatermark",
          MIRROR_OF
              + """
              local mirror = mirrorOf(KEYS[1])
              local cur = redis.call('HGET', mirror, ARGV[1])
              if not cur then return {0} end
              local m, e = string.match(cur, '^(%d+) (%d+)$')
              if m >= ARGV[2] or above(e, ARGV[3]) then return {0} end
              redis.call('HSET', mirror, ARGV[1], ARGV[2] .. ' ' .. ARGV[3])
              return {1}
              """);

  /** ARGV: effect. Takes the effect out of the source's mirror (forgetEffect). Reply: OK. */
  static final Script MIRROR_FORGET =
      Script.of(
          "forgetEffect",
          MIRROR_OF + "redis.call('HDEL', mirrorOf(KEYS[1]), ARGV[1])\nreturn {'OK'}\n");

  /** ARGV: subject. Reply: the stored key or ''. */
  static final Script LOAD_SUBJECT =
      Script.of("loadSubjectKey", "return {redis.call('HGET', KEYS[1], ARGV[1]) or ''}\n");

  /** ARGV: subject, candidate. Reply: the stored key, the candidate when it was absent. */
  static final Script PUT_SUBJECT =
      Script.of(
          "putSubjectKeyIfAbsent",
          """
          if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then return {ARGV[2]} end
          return {redis.call('HGET', KEYS[1], ARGV[1])}
          """);

  /** ARGV: subject. Reply: the number deleted. */
  static final Script ERASE_SUBJECT =
      Script.of("eraseSubject", "return {redis.call('HDEL', KEYS[1], ARGV[1])}\n");
}
