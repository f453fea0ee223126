package io.watukuy.internal;

/**
 * Thrown out of the HTTP helper, before anything is sent, when a page's first request equals the
 * previous page's: the page loop turns it into a stalled-lane {@link io.watukuy.FetchException}.
 * Fetch code that catches it cannot hide the stall: the scope remembers that it refused.
 */
final class RepeatedRequest extends RuntimeException {
  // No URL in the message: it may carry a credential in its query, and the page loop says more.
  RepeatedRequest() {
    super("not sent: the request repeats the previous page's", null, false, false);
  }
}
