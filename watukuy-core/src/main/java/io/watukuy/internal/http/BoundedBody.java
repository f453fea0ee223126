package io.watukuy.internal.http;

import java.io.IOException;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.ResponseInfo;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A {@link BodyHandler} that reads a response body into one array of at most {@code maxBytes}
 * bytes, so that a vendor's body cannot exhaust the heap (docs/config.md, "request.maxBodySize"). A
 * response whose {@code Content-Length} announces more is refused before a byte of its body is
 * read; a body without one (chunked, or endless) is counted as it arrives and the exchange is
 * cancelled as soon as it passes the bound. Either way the body completes exceptionally with a
 * {@link BodyTooLargeException}. A body within the bound is copied once, from the client's buffers
 * into the result.
 */
final class BoundedBody implements BodyHandler<byte[]> {

  private final long maxBytes;

  /**
   * @param maxBytes the largest body accepted, in bytes; positive
   */
  BoundedBody(long maxBytes) {
    if (maxBytes <= 0) throw new IllegalArgumentException("maxBytes must be > 0: " + maxBytes);
    this.maxBytes = maxBytes;
  }

  @Override
  public BodySubscriber<byte[]> apply(ResponseInfo info) {
    OptionalLong announced = info.headers().firstValueAsLong("Content-Length");
    if (announced.isPresent() && announced.getAsLong() > maxBytes) {
      return new Refused(new BodyTooLargeException(announced.getAsLong(), maxBytes, true));
    }
    return new Counting(maxBytes);
  }

  /** The body of a response refused before reading: cancels at once, never requests a buffer. */
  private static final class Refused implements BodySubscriber<byte[]> {
    private final CompletableFuture<byte[]> result = new CompletableFuture<>();

    Refused(BodyTooLargeException failure) {
      result.completeExceptionally(failure);
    }

    @Override
    public CompletionStage<byte[]> getBody() {
      return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      subscription.cancel();
    }

    @Override
    public void onNext(List<ByteBuffer> item) {}

    @Override
    public void onError(Throwable throwable) {}

    @Override
    public void onComplete() {}
  }

  /** Collects buffers while their sum stays within the bound. */
  private static final class Counting implements BodySubscriber<byte[]> {
    private final long maxBytes;
    private final CompletableFuture<byte[]> result = new CompletableFuture<>();
    private final List<byte[]> chunks = new ArrayList<>();
    private Flow.Subscription subscription;
    private long received;

    Counting(long maxBytes) {
      this.maxBytes = maxBytes;
    }

    @Override
    public CompletionStage<byte[]> getBody() {
      return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      this.subscription = subscription;
      subscription.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
      if (result.isDone()) return;
      for (ByteBuffer b : buffers) {
        int n = b.remaining();
        received += n;
        if (received > maxBytes) {
          chunks.clear(); // let the collected part go before the failure travels up
          subscription.cancel();
          result.completeExceptionally(new BodyTooLargeException(received, maxBytes, false));
          return;
        }
        byte[] chunk = new byte[n];
        b.get(chunk);
        chunks.add(chunk);
      }
      subscription.request(1);
    }

    @Override
    public void onError(Throwable throwable) {
      chunks.clear();
      result.completeExceptionally(throwable);
    }

    @Override
    public void onComplete() {
      if (result.isDone()) return;
      byte[] body = new byte[(int) received];
      int at = 0;
      for (byte[] chunk : chunks) {
        System.arraycopy(chunk, 0, body, at, chunk.length);
        at += chunk.length;
      }
      chunks.clear();
      result.complete(body);
    }
  }

  /**
   * A response body larger than the poller's {@code request.maxBodySize}: a fetch error, retried
   * with backoff like any other.
   */
  static final class BodyTooLargeException extends IOException {
    private static final long serialVersionUID = 1L;

    BodyTooLargeException(long size, long maxBytes, boolean announced) {
      super(
          announced
              ? "the response announces a body of "
                  + size
                  + " bytes (Content-Length), more than request.maxBodySize "
                  + maxBytes
                  + " bytes; refused before reading it"
              : "the response body passed request.maxBodySize "
                  + maxBytes
                  + " bytes (read "
                  + size
                  + " bytes when it was cut off)");
    }

    /** A body that passed the bound while it was decoded ({@link ContentCoding}). */
    BodyTooLargeException(long size, long maxBytes, String coding) {
      super(
          "the response body passed request.maxBodySize "
              + maxBytes
              + " bytes once decompressed (Content-Encoding "
              + coding
              + "; inflated "
              + size
              + " bytes when it was cut off)");
    }
  }
}
