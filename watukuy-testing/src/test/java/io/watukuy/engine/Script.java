package io.watukuy.engine;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.FetchContext;
import io.watukuy.Fetcher;
import io.watukuy.Page;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Function;

/**
 * A fetcher that answers from a script of pages, one per request, and records the cursor of every
 * request. When the script runs out it answers empty pages. It reads {@code ctx.page()} only in a
 * {@link #thenAnswer} step that does: a fetcher that never reads it requests by its cursor alone,
 * which is what the engine's stall check counts on (docs/operations.md, "Stalled lanes").
 */
final class Script<C> implements Fetcher<JsonNode, C> {
  /** One recorded request. */
  record Request<C>(C cursor) {}

  private final Deque<Function<FetchContext<C>, Page<JsonNode>>> steps = new ArrayDeque<>();
  private final List<Request<C>> requests = new ArrayList<>();

  Script<C> then(Page<JsonNode> page) {
    steps.add(ctx -> page);
    return this;
  }

  /** A step computed from the request (to return null, throw, or echo the cursor). */
  Script<C> thenAnswer(Function<FetchContext<C>, Page<JsonNode>> answer) {
    steps.add(answer);
    return this;
  }

  @Override
  public synchronized Page<JsonNode> fetch(FetchContext<C> ctx) {
    requests.add(new Request<>(ctx.cursor()));
    Function<FetchContext<C>, Page<JsonNode>> step = steps.poll();
    return step == null ? Page.empty() : step.apply(ctx);
  }

  synchronized List<Request<C>> requests() {
    return List.copyOf(requests);
  }

  /** The cursors of the requests so far, in order (null cursors included). */
  synchronized List<C> cursors() {
    List<C> out = new ArrayList<>();
    for (Request<C> r : requests) out.add(r.cursor());
    return out;
  }

  synchronized int remaining() {
    return steps.size();
  }
}
