package io.watukuy.internal;

import io.watukuy.PollerKey;
import io.watukuy.RequestInfo;
import io.watukuy.internal.http.DefaultHttp;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts the attempts of a request across cycles (RequestInfo.attempt): the engine retries a failed
 * or throttled request by polling again, and a metric or a trace should see the second poll as the
 * request's second attempt. One entry per key at most, the last request of the key whose answer
 * asks for a retry, held as a digest (the URL may carry a credential), in memory only.
 */
final class Resends {
  private final Map<PollerKey, Last> last = new ConcurrentHashMap<>();

  private record Last(String request, int attempt) {}

  /** The attempt number of the first send of this request by this key. */
  int firstAttempt(PollerKey key, String method, String target) {
    Last l = last.get(key);
    return l != null && l.request.equals(digest(method, target)) ? l.attempt + 1 : 1;
  }

  /** Remembers a send whose answer asks for a retry; any other answer of the key forgets. */
  void sent(PollerKey key, String method, String target, RequestInfo info) {
    if (retried(info)) last.put(key, new Last(digest(method, target), info.attempt()));
    else last.remove(key);
  }

  /** No answer, or one that a later poll repeats: a timeout (408), a throttle (429), a 5xx. */
  private static boolean retried(RequestInfo info) {
    int s = info.status();
    return info.failure() != null || s == 408 || s == 429 || (s >= 500 && s < 600);
  }

  private static String digest(String method, String target) {
    return DefaultHttp.sha256Hex(method + " " + target);
  }
}
