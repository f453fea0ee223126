package io.watukuy.bench.camel;

import io.watukuy.bench.ListingFetch;
import io.watukuy.bench.ListingServer;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.NamedNode;
import org.apache.camel.Route;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.processor.idempotent.IdempotentConsumer;
import org.apache.camel.spi.RoutePolicy;
import org.apache.camel.spi.RoutePolicyFactory;
import org.apache.camel.support.RoutePolicySupport;

/**
 * Runs {@link ListingSyncRoute} over a {@link ListingServer} of {@code n} items, twice on one
 * repository: the first sync (every key new: {@code n} items passed on) and the idle re-scan (every
 * key already in the repository: none passed on, {@code n} duplicates). Each pass is timed from the
 * moment the route is added (its timer fires at once) to the end of its timer's exchange, with the
 * process's CPU time over the same span; the listing server runs in this JVM, as it does in the
 * end-to-end bench's. A pass is checked (items passed on, duplicates, pages requested, rows in the
 * table) before its numbers are kept.
 */
final class PeerPasses {
  /** Items per page, as the server serves them. */
  static final int PAGE = ListingServer.PAGE;

  /** Timed passes of the plain fetch after one warm-up pass, as the end-to-end bench runs. */
  static final int FETCH_PASSES = ListingFetch.PASSES;

  /** A pass that takes longer than this fails the run. */
  static final Duration PASS_LIMIT = Duration.ofHours(1);

  /**
   * One pass's numbers.
   *
   * @param name {@code first-sync} or {@code idle-rescan}, as the bench names its phases
   * @param items items listed
   * @param passedOn items the idempotent consumer let through to the handler
   * @param duplicates items it stopped as already seen
   * @param requests pages requested, the empty one included
   * @param seconds wall time
   * @param cpuSeconds the process's CPU time over the same span
   */
  record Pass(
      String name,
      int items,
      long passedOn,
      long duplicates,
      int requests,
      double seconds,
      double cpuSeconds) {
    double itemsPerSecond() {
      return items / seconds;
    }

    /** CPU seconds per wall second: the share of a core the process used. */
    double cores() {
      return cpuSeconds / seconds;
    }
  }

  /**
   * The whole run.
   *
   * @param fetchSeconds the best plain fetch + parse of the listing
   * @param passes the first sync, then the idle re-scan
   * @param rows rows in the repository's table at the end
   */
  record Result(double fetchSeconds, List<Pass> passes, long rows) {}

  private PeerPasses() {}

  /**
   * Runs both passes.
   *
   * @param n items in the listing; at least 1
   * @param db the repository's database, empty
   * @return the numbers
   * @throws IllegalStateException if a pass failed or did not do exactly what it must
   */
  static Result run(int n, PeerDatabase db) throws Exception {
    try (ListingServer server = new ListingServer(n)) {
      // The bench's own plain fetch, warm-up included, so that the two floors compare.
      double fetchSeconds = ListingFetch.best(server, FETCH_PASSES);

      AtomicLong handled = new AtomicLong();
      List<Pass> passes = new ArrayList<>();
      try (CamelContext camel = new DefaultCamelContext()) {
        PassEnd end = new PassEnd();
        camel.addRoutePolicyFactory(end);
        camel.addRoutes(
            new RouteBuilder() {
              @Override
              public void configure() {
                // The no-op handler: counts what it is given, like the bench's EventCounter.
                from("direct:items")
                    .routeId("items-handler")
                    .process(e -> handled.incrementAndGet());
              }
            });
        camel.start();
        var repository = ListingSyncRoute.repository(db.dataSource(), db.table());
        passes.add(pass(camel, end, server, repository, handled, "first-sync", n, n, 0));
        passes.add(pass(camel, end, server, repository, handled, "idle-rescan", n, 0, n));
      }
      long rows = db.rows();
      if (rows != n)
        throw new IllegalStateException(
            "the repository's table holds " + rows + " rows after both passes, not " + n);
      return new Result(fetchSeconds, passes, rows);
    }
  }

  private static Pass pass(
      CamelContext camel,
      PassEnd end,
      ListingServer server,
      org.apache.camel.spi.IdempotentRepository repository,
      AtomicLong handled,
      String name,
      int n,
      long expectPassed,
      long expectDuplicates)
      throws Exception {
    var os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    System.gc(); // the garbage of the pass before is not this pass's work
    long handledBefore = handled.get();
    CompletableFuture<Exchange> done = end.next();
    long cpu0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    camel.addRoutes(new ListingSyncRoute(server.url(), repository, "direct:items"));
    Exchange exchange;
    try {
      exchange = done.get(PASS_LIMIT.toSeconds(), TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "camel peer " + name + ": the route did not finish within " + PASS_LIMIT, e);
    }
    long t1 = System.nanoTime();
    long cpu1 = os.getProcessCpuTime();
    IdempotentConsumer seen = camel.getProcessor(ListingSyncRoute.SEEN, IdempotentConsumer.class);
    long duplicates = seen == null ? -1 : seen.getDuplicateMessageCount();
    camel.getRouteController().stopRoute(ListingSyncRoute.ID);
    camel.removeRoute(ListingSyncRoute.ID);
    if (exchange.isFailed())
      throw new IllegalStateException(
          "camel peer " + name + ": the route failed: " + exchange.getException(),
          exchange.getException());
    long passedOn = handled.get() - handledBefore;
    Integer page = exchange.getProperty("page", Integer.class);
    int requests = page == null ? -1 : page - 1;
    int expectRequests = (n + PAGE - 1) / PAGE + 1; // every page with items, then an empty one
    if (passedOn != expectPassed || duplicates != expectDuplicates || requests != expectRequests)
      throw new IllegalStateException(
          String.format(
              "camel peer %s: expected %d items passed on, %d duplicates and %d pages requested"
                  + " over %d items, but saw %d, %d and %d",
              name,
              expectPassed,
              expectDuplicates,
              expectRequests,
              n,
              passedOn,
              duplicates,
              requests));
    return new Pass(name, n, passedOn, duplicates, requests, (t1 - t0) / 1e9, (cpu1 - cpu0) / 1e9);
  }

  /** Completes a future with the route's timer exchange once it is done, failed or not. */
  private static final class PassEnd implements RoutePolicyFactory {
    private volatile CompletableFuture<Exchange> next = new CompletableFuture<>();

    CompletableFuture<Exchange> next() {
      next = new CompletableFuture<>();
      return next;
    }

    @Override
    public RoutePolicy createRoutePolicy(CamelContext context, String routeId, NamedNode route) {
      if (!routeId.equals(ListingSyncRoute.ID)) return null;
      return new RoutePolicySupport() {
        @Override
        public void onExchangeDone(Route r, Exchange exchange) {
          next.complete(exchange);
        }
      };
    }
  }
}
