package io.watukuy.effects.internal;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import org.jspecify.annotations.Nullable;

/**
 * A response body read up to a limit (docs/effects.md, "HTTP calls"): a body that declares a larger
 * {@code Content-Length}, or sends more bytes than the limit, is not read further; the exchange is
 * cancelled and the result says the body was over the limit, so a journaled call never holds more
 * than the limit in memory.
 */
final class LimitedBody implements HttpResponse.BodySubscriber<LimitedBody.Body> {
  /**
   * What was read.
   *
   * @param bytes the whole body, or null when it was over the limit
   */
  record Body(byte @Nullable [] bytes) {
    boolean overLimit() {
      return bytes == null;
    }
  }

  private final long limit;
  private final long declared;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final CompletableFuture<Body> result = new CompletableFuture<>();
  private Flow.@Nullable Subscription subscription;

  private LimitedBody(long limit, long declared) {
    this.limit = limit;
    this.declared = declared;
  }

  /** A handler reading each body up to {@code limit} bytes. */
  static HttpResponse.BodyHandler<Body> handler(long limit) {
    return info ->
        new LimitedBody(limit, info.headers().firstValueAsLong("Content-Length").orElse(-1));
  }

  @Override
  public CompletionStage<Body> getBody() {
    return result;
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscription = s;
    if (declared > limit) overLimit();
    else s.request(Long.MAX_VALUE);
  }

  @Override
  public void onNext(List<ByteBuffer> buffers) {
    if (result.isDone()) return;
    for (ByteBuffer b : buffers) {
      if (out.size() + (long) b.remaining() > limit) {
        overLimit();
        return;
      }
      byte[] chunk = new byte[b.remaining()];
      b.get(chunk);
      out.writeBytes(chunk);
    }
  }

  @Override
  public void onError(Throwable error) {
    result.completeExceptionally(error);
  }

  @Override
  public void onComplete() {
    result.complete(new Body(out.toByteArray()));
  }

  /** Stops reading: the exchange is cancelled and the body dropped. */
  private void overLimit() {
    out.reset();
    result.complete(new Body(null));
    Flow.Subscription s = subscription;
    if (s != null) s.cancel();
  }
}
