package io.watukuy;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The rate-limit state a response reported, read by {@link HttpResult#rateLimit()} from the IETF
 * {@code RateLimit} / {@code RateLimit-Policy} fields (drafts -06, -07 and -08 to -10) or the
 * vendor {@code X-RateLimit-*} fields.
 *
 * @param remaining units (usually requests) left in the current window, never negative
 * @param resetAt when more quota arrives, already converted from the header's delta seconds or
 *     epoch seconds to an instant on the engine's clock; never before the response was received and
 *     never more than {@link HttpResult#MAX_WAIT} after it
 * @param limit the quota of the window, or null when the response did not say
 * @param policy the policy the values belong to: the quoted name of drafts -08 to -10 (for example
 *     {@code default}), the raw {@code RateLimit-Policy} value of older drafts (for example {@code
 *     100;w=60}), the {@code X-RateLimit-Resource} of GitHub (for example {@code core}), or null
 * @since 0.1
 */
public record RateLimitInfo(
    long remaining, Instant resetAt, @Nullable Long limit, @Nullable String policy) {

  /**
   * Creates the state.
   *
   * @param remaining units left in the window; 0 or more
   * @param resetAt when more quota arrives
   * @param limit the quota of the window, or {@code null}; 0 or more
   * @param policy the policy name or value, or {@code null}
   * @throws NullPointerException if {@code resetAt} is null
   * @throws IllegalArgumentException if {@code remaining} or {@code limit} is negative
   */
  public RateLimitInfo {
    Objects.requireNonNull(resetAt, "resetAt");
    if (remaining < 0) {
      throw new IllegalArgumentException("remaining must be >= 0, but was " + remaining);
    }
    if (limit != null && limit < 0) {
      throw new IllegalArgumentException("limit must be >= 0, but was " + limit);
    }
  }

  /**
   * Whether the window is used up.
   *
   * @return {@code remaining() == 0}
   */
  public boolean exhausted() {
    return remaining == 0;
  }
}
