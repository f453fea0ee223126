package io.watukuy.sink.webhook;

import org.jspecify.annotations.Nullable;

/**
 * A request the receiver did not accept, reported as the failure of its events: a status other than
 * 2xx, a 2xx whose body fails the {@code success} rule, no answer within the timeout, or a
 * connection broken mid-request (docs/sinks.md, "Webhooks"). The events are retried and then parked
 * under the poller's delivery policy (G7). A receiver that cannot be reached at all is {@link
 * io.watukuy.HandlerUnavailableException} instead, and a {@code Retry-After} is {@link
 * io.watukuy.RetryAfterException} with this as its cause.
 *
 * @since 0.2
 */
public final class WebhookDeliveryException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;

  /**
   * @param message what the receiver did, naming the sink (its URL redacted)
   * @param status the HTTP status, or 0 when there was no answer
   * @param cause the I/O failure, or null
   */
  public WebhookDeliveryException(String message, int status, @Nullable Throwable cause) {
    super(message, cause);
    this.status = status;
  }

  /**
   * The answer's status.
   *
   * @return the HTTP status, or 0 when there was no answer (a timeout, a broken connection)
   */
  public int status() {
    return status;
  }
}
