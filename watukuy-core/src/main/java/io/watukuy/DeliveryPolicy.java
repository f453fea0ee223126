package io.watukuy;

import java.util.Objects;

/**
 * Per-poller delivery settings: handler retries and the poison policy.
 *
 * @since 0.1
 */
public record DeliveryPolicy(RetryPolicy retry, PoisonPolicy poison) {
  public static final DeliveryPolicy DEFAULT = new DeliveryPolicy(RetryPolicy.DEFAULT, PoisonPolicy.DEFAULT);

  public DeliveryPolicy {
    Objects.requireNonNull(retry, "retry");
    Objects.requireNonNull(poison, "poison");
  }

  public DeliveryPolicy withRetry(RetryPolicy retry) {
    return new DeliveryPolicy(retry, poison);
  }

  public DeliveryPolicy withPoison(PoisonPolicy poison) {
    return new DeliveryPolicy(retry, poison);
  }
}
