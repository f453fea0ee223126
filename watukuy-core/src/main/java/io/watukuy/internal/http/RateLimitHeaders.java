package io.watukuy.internal.http;

import io.watukuy.RateLimitInfo;
import io.watukuy.internal.Values;
import io.watukuy.internal.http.StructuredFields.Member;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the rate-limit state of a response. Four field families are understood; the first one
 * present and well formed wins:
 *
 * <ol>
 *   <li>{@code RateLimit: "default";r=50;t=30} (draft-ietf-httpapi-ratelimit-headers -08 to -10),
 *       with the limit {@code q} and window {@code w} taken from the {@code RateLimit-Policy}
 *       member of the same name. A member without {@code t} resets at most one window {@code w}
 *       later; with neither, the member is skipped. Of several members, the one with the fewest
 *       remaining units is reported (on a tie, the later reset).
 *   <li>{@code RateLimit: limit=100, remaining=50, reset=5} (draft -07).
 *   <li>{@code RateLimit-Remaining}, {@code RateLimit-Reset}, {@code RateLimit-Limit} (drafts up to
 *       -06).
 *   <li>{@code X-RateLimit-Remaining}, {@code X-RateLimit-Reset}, {@code X-RateLimit-Limit} (GitHub
 *       and many others), with {@code X-RateLimit-Resource} as the policy.
 * </ol>
 *
 * <p><b>Reset values</b>, in every family: at least {@value #EPOCH_MILLIS_THRESHOLD} is epoch
 * milliseconds (seen in normalised recordings); at least {@value #EPOCH_SECONDS_THRESHOLD}
 * (2001-09-09T01:46:40Z) is epoch seconds (GitHub's {@code X-RateLimit-Reset}); anything smaller is
 * delta seconds, which is what the drafts define. A delta of 10<sup>9</sup> s would be 31 years, so
 * no real delta is misread. An epoch value is converted with the response's {@code Date} when it
 * parses ({@code now + (reset - Date)}, as GitHub's docs advise, which cancels out clock skew).
 * Every reset is then clamped to [now, now + {@link io.watukuy.HttpResult#MAX_WAIT}], so a bad
 * value never makes the scheduler wait decades.
 *
 * <p>Malformed fields are ignored, as the drafts require, with a debug log; parsing never throws. A
 * reset clamped to the maximum is logged at info. The IETF families are also ignored on a response
 * served from a cache ({@code Age} greater than 0), as the drafts require; the vendor family is
 * read regardless.
 */
final class RateLimitHeaders {

  private static final Logger LOG = LoggerFactory.getLogger(RateLimitHeaders.class);

  /** From this value on, a reset is epoch milliseconds. */
  public static final long EPOCH_MILLIS_THRESHOLD = 1_000_000_000_000L;

  /** From this value on (and below the milliseconds threshold), a reset is epoch seconds. */
  public static final long EPOCH_SECONDS_THRESHOLD = 1_000_000_000L;

  private RateLimitHeaders() {}

  /**
   * Parses the rate-limit fields of a response received at {@code now}.
   *
   * @param headers response headers with lower-cased names
   * @return the reported state, or empty when no family is present, well formed and complete
   */
  public static Optional<RateLimitInfo> parse(Map<String, List<String>> headers, Instant now) {
    @Nullable String date = first(headers, "date");
    if (!fromCache(headers)) {
      @Nullable String rateLimit = joined(headers, "ratelimit");
      @Nullable String policy = joined(headers, "ratelimit-policy");
      if (rateLimit != null) {
        Optional<RateLimitInfo> info = currentDraft(rateLimit, policy, date, now);
        if (info.isPresent()) return info;
        info = draft07(rateLimit, policy, date, now);
        if (info.isPresent()) return info;
        LOG.debug(
            "RateLimit '{}'{} has no member with a remaining count and a reset time;" + " ignored",
            Values.abbreviate(rateLimit),
            policy == null ? "" : " (RateLimit-Policy '" + Values.abbreviate(policy) + "')");
      }
      Optional<RateLimitInfo> info =
          separateFields(headers, "ratelimit-", policy == null ? null : policy.strip(), date, now);
      if (info.isPresent()) return info;
    }
    return separateFields(
        headers, "x-ratelimit-", first(headers, "x-ratelimit-resource"), date, now);
  }

  /**
   * Turns a reset value into an instant by the rule in the class comment.
   *
   * @param value a non-negative reset value: delta seconds, epoch seconds or epoch milliseconds
   * @param date the response's {@code Date} field, or null
   */
  public static Instant resetAt(long value, @Nullable String date, Instant now) {
    Instant epoch;
    if (value >= EPOCH_MILLIS_THRESHOLD) {
      epoch = Instant.ofEpochMilli(value);
    } else if (value >= EPOCH_SECONDS_THRESHOLD) {
      epoch = Instant.ofEpochSecond(value);
    } else {
      return RetryAfter.afterDelay("RateLimit reset", now, value);
    }
    Optional<Instant> serverNow = date == null ? Optional.empty() : HttpDates.parse(date, now);
    Instant local =
        serverNow.isPresent() ? now.plus(Duration.between(serverNow.get(), epoch)) : epoch;
    return RetryAfter.clamp("RateLimit reset", local, now);
  }

  private static Optional<RateLimitInfo> currentDraft(
      String rateLimit, @Nullable String policyField, @Nullable String date, Instant now) {
    Optional<List<Member>> members = StructuredFields.parse(rateLimit);
    if (members.isEmpty() || members.get().isEmpty()) return Optional.empty();
    Map<String, Member> policies = new HashMap<>();
    if (policyField != null) {
      StructuredFields.parse(policyField)
          .ifPresent(
              list -> {
                for (Member p : list) {
                  if (p.key() == null && p.value() instanceof String name) {
                    policies.putIfAbsent(name, p);
                  }
                }
              });
    }
    @Nullable RateLimitInfo best = null;
    for (Member m : members.get()) {
      if (m.key() != null || !(m.value() instanceof String name)) return Optional.empty();
      @Nullable Long remaining = m.longParam("r");
      if (remaining == null || remaining < 0) continue;
      @Nullable Member policy = policies.get(name);
      @Nullable Long t = m.longParam("t");
      @Nullable Long window = policy == null ? null : policy.longParam("w");
      Instant reset;
      if (t != null && t >= 0) {
        reset = resetAt(t, date, now);
      } else if (window != null && window > 0) {
        reset = RetryAfter.afterDelay("RateLimit-Policy window", now, window);
      } else {
        continue;
      }
      @Nullable Long quota = policy == null ? null : policy.longParam("q");
      RateLimitInfo info =
          new RateLimitInfo(remaining, reset, quota != null && quota >= 0 ? quota : null, name);
      if (best == null
          || info.remaining() < best.remaining()
          || (info.remaining() == best.remaining() && info.resetAt().isAfter(best.resetAt()))) {
        best = info;
      }
    }
    return Optional.ofNullable(best);
  }

  private static Optional<RateLimitInfo> draft07(
      String rateLimit, @Nullable String policyField, @Nullable String date, Instant now) {
    Optional<List<Member>> members = StructuredFields.parse(rateLimit);
    if (members.isEmpty()) return Optional.empty();
    @Nullable Long remaining = null;
    @Nullable Long reset = null;
    @Nullable Long limit = null;
    for (Member m : members.get()) {
      if (m.key() == null) return Optional.empty();
      if (!(m.value() instanceof Long v) || v < 0) continue;
      switch (m.key()) {
        case "remaining" -> remaining = v;
        case "reset" -> reset = v;
        case "limit" -> limit = v;
        default -> {
          // Unknown keys are extensions; ignore them.
        }
      }
    }
    if (remaining == null || reset == null) return Optional.empty();
    return Optional.of(
        new RateLimitInfo(
            remaining,
            resetAt(reset, date, now),
            limit,
            policyField == null ? null : policyField.strip()));
  }

  private static Optional<RateLimitInfo> separateFields(
      Map<String, List<String>> headers,
      String prefix,
      @Nullable String policy,
      @Nullable String date,
      Instant now) {
    @Nullable Long remaining = firstInteger(headers, prefix + "remaining");
    @Nullable Long reset = firstInteger(headers, prefix + "reset");
    if (remaining == null || reset == null) {
      @Nullable String rawRemaining = joined(headers, prefix + "remaining");
      @Nullable String rawReset = joined(headers, prefix + "reset");
      if (rawRemaining != null || rawReset != null) {
        LOG.debug(
            "{}remaining '{}' / {}reset '{}' are not both non-negative integers; ignored",
            prefix,
            Values.abbreviate(String.valueOf(rawRemaining)),
            prefix,
            Values.abbreviate(String.valueOf(rawReset)));
      }
      return Optional.empty();
    }
    @Nullable Long limit = firstInteger(headers, prefix + "limit");
    return Optional.of(new RateLimitInfo(remaining, resetAt(reset, date, now), limit, policy));
  }

  // The fields are single Integers, but early drafts allowed "100, 100;w=60" in the limit.
  private static @Nullable Long firstInteger(Map<String, List<String>> headers, String name) {
    @Nullable String value = joined(headers, name);
    if (value == null) return null;
    Optional<List<Member>> members = StructuredFields.parse(value);
    if (members.isEmpty() || members.get().isEmpty()) return null;
    return members.get().get(0).value() instanceof Long l && l >= 0 ? l : null;
  }

  private static boolean fromCache(Map<String, List<String>> headers) {
    @Nullable String age = first(headers, "age");
    if (age == null) return false;
    String v = age.strip();
    return !v.isEmpty() && v.chars().allMatch(c -> c >= '0' && c <= '9') && !v.matches("0+");
  }

  private static @Nullable String first(Map<String, List<String>> headers, String name) {
    List<String> values = headers.get(name);
    return values == null || values.isEmpty() ? null : values.get(0);
  }

  // Several field lines of one list-valued field combine with commas (RFC 9110 §5.3).
  private static @Nullable String joined(Map<String, List<String>> headers, String name) {
    List<String> values = headers.get(name);
    return values == null || values.isEmpty() ? null : String.join(", ", values);
  }
}
