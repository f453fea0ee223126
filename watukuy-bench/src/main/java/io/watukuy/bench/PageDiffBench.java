package io.watukuy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.Schedule;
import io.watukuy.TickReport;
import io.watukuy.Watukuy;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.SeededRandom;
import io.watukuy.testing.VirtualClock;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The diff of one 500-item page against the stored versions, through the real engine: one {@link
 * Watukuy#tick()} of a {@code snapshotDiff} poller on a {@link MemoryStore}, whose fetch hands back
 * a prebuilt page of recorded GitHub issues (no HTTP, no JSON parsing). A tick is what a page costs
 * the engine: state and lease, the version look-up, the diff, the commit of rows and events,
 * delivery to a no-op handler, the deletes pass of a completed listing, schedule and release. The
 * engine's page diff ({@code PageCommit}) is package-private and is reached only this way, so
 * nothing internal is opened for the bench.
 *
 * <p>Modes: {@code unchanged-by-version} (a poller with a version function: every item skipped on
 * its version, none hashed), {@code unchanged-by-hash} (no version function: every item
 * canonicalized and hashed, none changed), {@code changed-10pct} (with version; every tick
 * alternates between two pages that differ in every tenth item, so 50 items are hashed, stored and
 * delivered as {@code updated} events per tick).
 *
 * <p>Baseline ({@code tickBaseline}): a hand-written diff of the same page with no engine and no
 * store: identity and version read from each tree, a {@link HashMap} look-up, and where the version
 * does not decide, Jackson serialize + plain SHA-256 of the item; changed rows are put back in the
 * map. Throughput in pages per second; {@code ratio = watukuy / baseline}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class PageDiffBench {
  /** Items per page. */
  public static final int PAGE = 500;

  private static final Duration MIN = Duration.ofSeconds(30);

  /** See the class comment. */
  @Param({"unchanged-by-version", "unchanged-by-hash", "changed-10pct"})
  public String mode;

  private VirtualClock clock;
  private Watukuy engine;
  private List<JsonNode> pageA;
  private List<JsonNode> pageB;
  private List<JsonNode> current;
  private boolean flip;
  private boolean byVersion;
  private boolean changing;
  private final Map<String, String[]> stored = new HashMap<>();

  /** Builds the pages, runs the first sync and checks one tick diffs as the mode says. */
  @Setup(Level.Trial)
  public void setUp() throws IOException {
    byVersion = !mode.equals("unchanged-by-hash");
    changing = mode.equals("changed-10pct");
    if (!mode.equals("unchanged-by-version") && !mode.equals("unchanged-by-hash") && !changing)
      throw new IllegalArgumentException(
          "mode must be unchanged-by-version, unchanged-by-hash or changed-10pct, but was " + mode);
    pageA = Items.page(0, PAGE);
    pageB = new ArrayList<>(pageA);
    for (int i = 0; i < PAGE; i += 10) pageB.set(i, Items.item(i, 1));
    current = pageA;

    clock = VirtualClock.at("2026-01-01T00:00:00Z");
    Poller.Builder<JsonNode, Void> poller =
        Poller.builder("issues", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .fetch(ctx -> ctx.page() == 1 ? Page.of(current) : Page.<JsonNode>empty())
            .schedule(Schedule.every(MIN).withAdaptive(false).withJitter(0));
    if (byVersion) poller.version(n -> n.get("updated_at"));
    Poller<JsonNode> built = poller.build();
    engine =
        Watukuy.builder()
            .store(new MemoryStore())
            .time(clock)
            .random(SeededRandom.of(7))
            .executor(Runnable::run)
            .handlerExecutor(Runnable::run)
            .delivery(new DeliveryOptions(1, DeliveryOptions.DEFAULT_DISPATCH_BATCH_SIZE))
            .poller(built)
            .build();
    engine.on(built, event -> {});
    expect(tick(), PAGE, "the first sync");
    expect(tick(), changing ? PAGE / 10 : 0, "a re-scan");

    // The baseline starts from the same stored state: page A, then the page the engine saw last.
    for (JsonNode n : pageA) baselineDiff(n);
    for (JsonNode n : current) baselineDiff(n);
    int changed = tickBaseline();
    if (changed != (changing ? PAGE / 10 : 0))
      throw new IllegalStateException(mode + ": the baseline found " + changed + " changed items");
  }

  /** Closes the engine. */
  @TearDown(Level.Trial)
  public void tearDown() {
    engine.close();
  }

  /** One engine tick over the page: the diff of 500 items and everything around it. */
  @Benchmark
  public TickReport tick() {
    if (changing) current = (flip = !flip) ? pageB : pageA;
    clock.advance(MIN);
    return engine.tick();
  }

  /** The same page diffed by hand against a {@link HashMap}; returns how many changed. */
  @Benchmark
  public int tickBaseline() throws IOException {
    if (changing) current = (flip = !flip) ? pageB : pageA;
    int changed = 0;
    for (JsonNode n : current) changed += baselineDiff(n);
    return changed;
  }

  private int baselineDiff(JsonNode n) throws IOException {
    String id = n.get("id").asText();
    String version = byVersion ? n.get("updated_at").asText() : null;
    String[] row = stored.get(id);
    if (row != null && version != null && version.equals(row[0])) return 0;
    String hash = Digests.sha256Hex(Items.MAPPER.writeValueAsBytes(n));
    if (row != null && hash.equals(row[1])) return 0;
    stored.put(id, new String[] {version, hash});
    return 1;
  }

  private void expect(TickReport report, int events, String what) {
    if (report.failed() || report.eventsCommitted() != events || report.delivered() != events)
      throw new IllegalStateException(
          mode
              + ": "
              + what
              + " should commit and deliver "
              + events
              + " events, but the tick reported "
              + report);
  }
}
