package io.watukuy;

import java.util.Objects;

/**
 * Per-poller delivery settings: handler retries and the poison policy (guarantee G7).
 *
 * @param retry how often and how far apart a failing event is retried; default {@link
 *     RetryPolicy#DEFAULT}
 * @param poison what happens once the retries are used up; default {@link PoisonPolicy#DEFAULT}
 * @since 0.1
 */
public record DeliveryPolicy(RetryPolicy retry, PoisonPolicy poison) {
  /** {@link RetryPolicy#DEFAULT} and {@link PoisonPolicy#DEFAULT}. */
  public static final DeliveryPolicy DEFAULT =
      new DeliveryPolicy(RetryPolicy.DEFAULT, PoisonPolicy.DEFAULT);

  /**
   * Creates the policy.
   *
   * @param retry the handler retries
   * @param poison the poison policy
   * @throws NullPointerException if an argument is null
   */
  public DeliveryPolicy {
    Objects.requireNonNull(retry, "retry");
    Objects.requireNonNull(poison, "poison");
  }

  /**
   * This policy with other retries.
   *
   * @param retry the handler retries
   * @return a new policy; this one is unchanged
   * @throws NullPointerException if {@code retry} is null
   */
  public DeliveryPolicy withRetry(RetryPolicy retry) {
    return new DeliveryPolicy(retry, poison);
  }

  /**
   * This policy with another poison policy.
   *
   * @param poison the poison policy
   * @return a new policy; this one is unchanged
   * @throws NullPointerException if {@code poison} is null
   */
  public DeliveryPolicy withPoison(PoisonPolicy poison) {
    return new DeliveryPolicy(retry, poison);
  }
}
