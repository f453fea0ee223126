package io.watukuy.store.redis;

import io.watukuy.BudgetLimit;
import io.watukuy.ConfigException;
import io.watukuy.StoreException;
import io.watukuy.spi.RateBudgetStore;
import io.watukuy.store.redis.Scripts.Script;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The {@link RateBudgetStore} on Redis (docs/stores.md, "RedisStore and RedisBudgetStore"): one
 * token bucket per budget name, shared by every instance that uses the same Redis and prefix, so a
 * budget holds across all of them (guarantee G6). Reached through a {@link RedisLike}, usually a
 * {@link LettuceRedis} over a connection the caller opened.
 *
 * <pre>{@code
 * RedisLike redis = LettuceRedis.of(connection, uri);
 * Watukuy.builder().store(RedisStore.open(redis)).budgetStore(RedisBudgetStore.open(redis));
 * RedisBudgetStore custom = RedisBudgetStore.builder(redis).prefix("orders:").build();
 * }</pre>
 *
 * <p><b>Options.</b> {@code prefix} (default {@value #DEFAULT_PREFIX}): prepended to every key,
 * with the same rules as {@link RedisStore.Builder#prefix(String)}, so one prefix can serve both
 * stores (their keys never collide: the budget keys continue with {@code budget:}).
 *
 * <p><b>Key layout.</b> Budget {@code name} lives in one hash, {@code <prefix>budget:<name>} (see
 * {@link #keyName}), the name written as given. Fields: {@code tokens}, what the last successful
 * take left, as an integer count of {@code 1/scale} tokens; {@code at}, when that take happened
 * (the caller's clock, epoch milliseconds); {@code scale}, the denominator of the rate (below). The
 * key never expires: expiring it by the server's clock would refill the bucket early under a
 * caller's clock that runs slower, such as a virtual clock, and a budget is one small hash. There
 * are no braces in the layout: each call touches exactly this one key, so a cluster client routes
 * it by the key itself. A name with braces only moves the key's slot, never its identity.
 *
 * <p><b>Arithmetic.</b> Exactly the formula of {@link RateBudgetStore}, in integers. The rate
 * {@code requests / per} is reduced to {@code r / d} tokens per millisecond in lowest terms ({@code
 * r = requests * 10^6 / g}, {@code d = per-in-nanoseconds / g}); the bucket counts tokens in units
 * of {@code 1/d} (so {@code scale = d}, capacity {@code burst * d}), and each millisecond adds
 * {@code r} units. A take of {@code n} succeeds when the bucket holds {@code n * d} units;
 * otherwise the answer is {@code ceil((n * d - held) / r)} milliseconds, the first whole
 * millisecond at which the bucket holds them. Redis runs Lua with double-precision numbers, which
 * are exact integers below 2<sup>53</sup>; every intermediate value stays below {@code burst * d +
 * r}, so the store refuses (with {@link ConfigException}) a limit where that reaches
 * 2<sup>53</sup>. No realistic budget comes near: 10<sup>6</sup> requests per day with a burst of
 * 10<sup>6</sup> reach about 10<sup>14</sup>. Instants are taken at millisecond precision ({@link
 * Instant#toEpochMilli()}) and must lie within 2<sup>51</sup> ms (about 71,000 years) of 1970. A
 * limit that changes for a name keeps the whole tokens the bucket held, capped at the new burst.
 *
 * <p><b>Time.</b> Driven only by the caller's {@code now}, never by the server's {@code TIME}, so
 * it is deterministic under a virtual clock. A {@code now} earlier than the bucket's last
 * successful take counts as that take's instant; a refused take writes nothing.
 *
 * <p><b>Atomicity.</b> Each {@link #tryTake} is one Lua script ({@code EVALSHA}, or {@code EVAL}
 * when the server answers {@code NOSCRIPT}): read, refill, take and write happen at once, so
 * concurrent callers on any number of instances never take a token twice.
 *
 * <p><b>Why not Bucket4j.</b> Bucket4j 8.14 ({@code bucket4j_jdk17-core} with {@code
 * bucket4j_jdk17-lettuce}) was tried first. Its greedy refill is the same arithmetic and it accepts
 * a client clock, but it does not fit this port: (1) its Redis support talks to Lettuce's own API
 * (asynchronous {@code RedisFuture}s, a {@code byte[]} value codec, {@code GET} and {@code DEL}),
 * not to {@link RedisLike}'s two UTF-8 script calls, so a Jedis or other adapter would not carry
 * it; (2) it computes in the client and writes with compare-and-swap, a {@code GET} plus a script
 * per attempt, repeated under contention (eight threads on one bucket took about four round-trip
 * pairs per take), where this store needs one atomic script per take; (3) its clock belongs to the
 * proxy manager, not to the call, so the caller's {@code now} would have to travel in a
 * thread-local; (4) its wait answer is rounded down in nanoseconds, so a take at {@code now +
 * answer} can still be refused; (5) the bucket is an opaque binary blob in Bucket4j's serial format
 * rather than fields an operator can read.
 *
 * <p><b>Threads and failures.</b> Safe for use from several threads when the {@link RedisLike} is.
 * Each call blocks for one round trip, at most the client's command timeout. A client failure
 * (server down, connection lost, timeout, an error reply) is thrown as a {@link StoreException}
 * naming the endpoint, the prefix, the operation and the budget, with the client's exception as the
 * cause; a script the server did not run took nothing. The store keeps no connection state, never
 * opens or closes the connection, and performs no I/O when built.
 *
 * @since 0.1
 */
public final class RedisBudgetStore implements RateBudgetStore {

  /** Default of {@link Builder#prefix(String)}. */
  public static final String DEFAULT_PREFIX = RedisStore.DEFAULT_PREFIX;

  /** Largest integer every intermediate value of the script must stay within: 2^53 - 1. */
  static final long MAX_EXACT = (1L << 53) - 1;

  /** Largest distance of {@code now} from 1970, in ms: elapsed times then stay below 2^53. */
  static final long MAX_TIME_MS = 1L << 51;

  private static final BigInteger NANOS_PER_MS = BigInteger.valueOf(1_000_000);
  private static final BigInteger NANOS_PER_SECOND = BigInteger.valueOf(1_000_000_000);

  /**
   * KEYS[1]: the bucket hash. ARGV: now (ms), permits, burst, r (units per ms), d (units per
   * token). Replies {0} when taken, else {ms to wait}. Every number stays an integer below 2^53,
   * where Lua's doubles are exact. quot() checks the float quotient against the exact products;
   * within these bounds math.floor(a / b) is already exact, and the check keeps it so should a
   * bound ever be loosened. Numbers are written with %.0f, which prints every such integer in full
   * (Lua's own conversion would print 14 digits and an exponent).
   */
  static final Script TRY_TAKE =
      Script.of(
          "tryTake",
          """
          local now, permits, burst, r, d =
            tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
          local function quot(a, b)
            local q = math.floor(a / b)
            while q * b > a do q = q - 1 end
            while (q + 1) * b <= a do q = q + 1 end
            return q
          end
          local function ceilquot(a, b)
            local q = quot(a, b)
            if q * b < a then q = q + 1 end
            return q
          end
          local capacity = burst * d
          local cur = redis.call('HMGET', KEYS[1], 'tokens', 'at', 'scale')
          local held, at
          if not cur[1] then
            held, at = capacity, now
          else
            held, at = tonumber(cur[1]), tonumber(cur[2])
            local scale = tonumber(cur[3])
            if scale ~= d then held = math.min(quot(held, scale), burst) * d end
            if held > capacity then held = capacity end
            if now > at then
              local missing = capacity - held
              if missing > 0 then
                local elapsed = now - at
                if elapsed >= ceilquot(missing, r) then
                  held = capacity
                else
                  held = held + elapsed * r
                end
              end
              at = now
            end
          end
          local want = permits * d
          if held >= want then
            redis.call('HSET', KEYS[1], 'tokens', string.format('%.0f', held - want),
              'at', string.format('%.0f', at), 'scale', string.format('%.0f', d))
            return {0}
          end
          return {ceilquot(want - held, r)}
          """);

  private final RedisLike redis;
  private final String prefix;

  private RedisBudgetStore(RedisLike redis, String prefix) {
    this.redis = redis;
    this.prefix = prefix;
  }

  /**
   * A store with the default prefix. Performs no I/O.
   *
   * @param redis the client; the store never opens or closes its connection
   * @return the store
   * @throws NullPointerException if {@code redis} is null
   */
  public static RedisBudgetStore open(RedisLike redis) {
    return builder(redis).build();
  }

  /**
   * A builder with the default options.
   *
   * @param redis the client; the store never opens or closes its connection
   * @return a new builder
   * @throws NullPointerException if {@code redis} is null
   */
  public static Builder builder(RedisLike redis) {
    Objects.requireNonNull(redis, "redis");
    return new Builder(redis);
  }

  /**
   * Options of a {@link RedisBudgetStore}. Not thread-safe; {@link #build()} may be called more
   * than once, each call returning a new store.
   */
  public static final class Builder {
    private final RedisLike redis;
    private String prefix = DEFAULT_PREFIX;

    private Builder(RedisLike redis) {
      this.redis = redis;
    }

    /**
     * Prefix of every key the store writes. Defaults to {@value RedisBudgetStore#DEFAULT_PREFIX}.
     *
     * @param prefix 1 to 200 characters, no braces, whitespace or control characters (the rules of
     *     {@link RedisStore.Builder#prefix(String)})
     * @return this builder
     * @throws ConfigException when {@code prefix} breaks these rules; the message names the option
     *     and the value
     * @throws NullPointerException if {@code prefix} is null
     */
    public Builder prefix(String prefix) {
      Objects.requireNonNull(prefix, "prefix");
      KeyLayout.checkPrefix(prefix);
      this.prefix = prefix;
      return this;
    }

    /**
     * The store. Performs no I/O.
     *
     * @return a new store with this builder's options
     */
    public RedisBudgetStore build() {
      return new RedisBudgetStore(redis, prefix);
    }
  }

  /**
   * The prefix of every key.
   *
   * @return the prefix in use
   */
  public String prefix() {
    return prefix;
  }

  /**
   * Where the server is, as the client names it.
   *
   * @return {@link RedisLike#endpoint()}
   */
  public String endpoint() {
    return redis.endpoint();
  }

  /**
   * The name of the hash that holds the bucket of budget {@code name}: {@code
   * <prefix>budget:<name>}. For operators and tests; performs no I/O.
   *
   * @param name the budget's name
   * @return the key name
   * @throws NullPointerException if {@code name} is null
   */
  public String keyName(String name) {
    Objects.requireNonNull(name, "name");
    return prefix + "budget:" + name;
  }

  /**
   * {@inheritDoc}
   *
   * <p>One script, one round trip. Waits are whole milliseconds, rounded up.
   *
   * @throws ConfigException when {@code limit} is beyond this store's exact range (see the class
   *     documentation); the message names the budget and the values
   * @throws IllegalArgumentException when {@code permits} is out of range, or {@code now} is more
   *     than 2<sup>51</sup> ms from 1970
   * @throws StoreException naming the endpoint, prefix and budget when Redis fails
   */
  @Override
  public Duration tryTake(String name, BudgetLimit limit, int permits, Instant now) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(limit, "limit");
    Objects.requireNonNull(now, "now");
    if (permits < 1 || permits > limit.burst()) {
      throw new IllegalArgumentException(
          "budget "
              + name
              + ": permits must be 1 to "
              + limit.burst()
              + " (the burst), but was "
              + permits);
    }
    long nowMs = epochMillis(name, now);
    Rate rate = Rate.of(name, limit);
    List<String> args =
        List.of(
            Long.toString(nowMs),
            Integer.toString(permits),
            Integer.toString(limit.burst()),
            Long.toString(rate.unitsPerMs()),
            Long.toString(rate.unitsPerToken()));
    long wait = run(name, args);
    return wait == 0 ? Duration.ZERO : Duration.ofMillis(wait);
  }

  @Override
  public String toString() {
    return "RedisBudgetStore[" + redis.endpoint() + ", prefix=" + prefix + "]";
  }

  /**
   * A budget's rate as {@code unitsPerMs / unitsPerToken} tokens per millisecond, in lowest terms.
   *
   * @param unitsPerMs {@code r}: units added per millisecond
   * @param unitsPerToken {@code d}: units in one token
   */
  record Rate(long unitsPerMs, long unitsPerToken) {
    static Rate of(String name, BudgetLimit limit) {
      BigInteger perNanos =
          BigInteger.valueOf(limit.per().getSeconds())
              .multiply(NANOS_PER_SECOND)
              .add(BigInteger.valueOf(limit.per().getNano()));
      BigInteger tokensPerMs = BigInteger.valueOf(limit.requests()).multiply(NANOS_PER_MS);
      BigInteger g = tokensPerMs.gcd(perNanos);
      BigInteger r = tokensPerMs.divide(g);
      BigInteger d = perNanos.divide(g);
      BigInteger largest = BigInteger.valueOf(limit.burst()).multiply(d).add(r);
      if (largest.compareTo(BigInteger.valueOf(MAX_EXACT)) > 0) {
        throw new ConfigException(
            "budget "
                + name
                + ": "
                + limit.requests()
                + " requests per "
                + limit.per()
                + " with burst "
                + limit.burst()
                + " is beyond the exact range of the Redis budget store (burst * d + r = "
                + largest
                + " must be below 2^53, where r/d is the rate in tokens per millisecond in lowest"
                + " terms); use a shorter per with proportionally fewer requests");
      }
      return new Rate(r.longValueExact(), d.longValueExact());
    }
  }

  private static long epochMillis(String name, Instant now) {
    long ms;
    try {
      ms = now.toEpochMilli();
    } catch (ArithmeticException e) {
      ms = Long.MAX_VALUE;
    }
    if (ms > MAX_TIME_MS || ms < -MAX_TIME_MS) {
      throw new IllegalArgumentException(
          "budget " + name + ": now " + now + " is more than 2^51 ms from 1970");
    }
    return ms;
  }

  private long run(String name, List<String> args) {
    List<String> keys = List.of(keyName(name));
    @Nullable Object reply;
    try {
      try {
        reply = redis.evalsha(TRY_TAKE.sha1(), keys, args);
      } catch (RedisLike.NoScriptException e) {
        // A restarted server or SCRIPT FLUSH forgot the script: EVAL sends and caches it.
        reply = redis.eval(TRY_TAKE.source(), keys, args);
      }
    } catch (RuntimeException e) {
      throw new StoreException(
          describe(name) + " failed: " + (e.getMessage() != null ? e.getMessage() : e), e);
    }
    if (reply instanceof List<?> list
        && list.size() == 1
        && list.get(0) instanceof Long wait
        && wait >= 0) {
      return wait;
    }
    throw new StoreException(describe(name) + " failed: unexpected reply " + reply, null);
  }

  private String describe(String name) {
    return "redis budget store "
        + redis.endpoint()
        + " (prefix "
        + prefix
        + "): tryTake budget "
        + name;
  }
}
