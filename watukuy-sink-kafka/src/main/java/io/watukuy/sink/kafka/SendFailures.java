package io.watukuy.sink.kafka;

import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * Sorts a failed send into what the engine does with it (docs/sinks.md, "Kafka"; G1, G7).
 *
 * <ul>
 *   <li>{@link Kind#UNAVAILABLE}: the brokers cannot take records now (a timeout, a lost
 *       connection, a leader election, credentials refused): the batch stays pending and is retried
 *       with backoff; no attempt is counted and nothing is parked, since no event is at fault;
 *   <li>{@link Kind#REJECTED}: the broker or the client refuses this record for good (too large, a
 *       topic the credentials may not write, an invalid topic or record): that event fails, is
 *       retried, then parked, and holds its ordering key per the poison policy;
 *   <li>{@link Kind#OTHER}: anything else fails the batch (an attempt for each ordering key's first
 *       event), the engine's rule for an unknown error.
 * </ul>
 */
final class SendFailures {
  /** What a failed send means. */
  enum Kind {
    UNAVAILABLE,
    REJECTED,
    OTHER
  }

  private SendFailures() {}

  /**
   * The kind of a send's failure.
   *
   * @param cause the exception the send's future failed with
   * @return its kind
   */
  static Kind kind(Throwable cause) {
    if (cause instanceof RecordTooLargeException
        || cause instanceof RecordBatchTooLargeException
        || cause instanceof AuthorizationException
        || cause instanceof InvalidTopicException
        || cause instanceof InvalidRecordException) return Kind.REJECTED;
    if (cause instanceof TimeoutException
        || cause instanceof RetriableException
        || cause instanceof AuthenticationException) return Kind.UNAVAILABLE;
    return Kind.OTHER;
  }
}
