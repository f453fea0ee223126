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

  /**
   * A handler reading each body up to a limit, which remembers whether a body went over it: the JDK
   * client may end an exchange whose body was cancelled with an {@code IOException} rather than the
   * over-limit result, and the caller must still tell that apart from a transport error (a re-send
   * would make the receiver do its work again for a body that stays too large).
   */
  static final class Handler implements HttpResponse.BodyHandler<Body> {
    private final long limit;
    private volatile boolean over;
    private volatile int status;

    private Handler(long limit) {
      this.limit = limit;
    }

    @Override
    public HttpResponse.BodySubscriber<Body> apply(HttpResponse.ResponseInfo info) {
      status = info.statusCode();
      return new LimitedBody(
          limit, info.headers().firstValueAsLong("Content-Length").orElse(-1), this);
    }

    /** Whether a body read by this handler went over the limit. */
    boolean overLimit() {
      return over;
    }

    /** The status of the last response this handler read, 0 before one. */
    int status() {
      return status;
    }
  }

  private final long limit;
  private final long declared;
  private final Handler handler;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final CompletableFuture<Body> result = new CompletableFuture<>();
  private Flow.@Nullable Subscription subscription;

  private LimitedBody(long limit, long declared, Handler handler) {
    this.limit = limit;
    this.declared = declared;
    this.handler = handler;
  }

  /** A handler reading each body up to {@code limit} bytes; one per exchange. */
  static Handler handler(long limit) {
    return new Handler(limit);
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
    handler.over = true;
    out.reset();
    result.complete(new Body(null));
    Flow.Subscription s = subscription;
    if (s != null) s.cancel();
  }
}
