package io.watukuy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Backoff;
import io.watukuy.ChangeEvent;
import io.watukuy.Cursors;
import io.watukuy.EventType;
import io.watukuy.FetchContext;
import io.watukuy.HttpResult;
import io.watukuy.KeyInspection;
import io.watukuy.Lane;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Reconcile;
import io.watukuy.RequestOptions;
import io.watukuy.Retain;
import io.watukuy.Schedule;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import io.watukuy.sink.SinkConfig;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StateStore;
import io.watukuy.store.sqlite.SqliteStore;
import java.io.Console;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code watukuy demo}: starts {@link DemoVendor} on a loopback port and polls it with the
 * timestamp strategy on {@code (updated_at, number)} plus a short reconcile that catches deletes,
 * into {@code watukuy-demo.db}, printing each event as one readable line on stdout and a status
 * line on stderr. Stops on SIGINT or SIGTERM (or after {@code --for}) with drain; a second run
 * resumes from the same database and vendor state.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = {
      "Runs watukuy against a built-in vendor API whose GitHub issues keep changing.",
      "No network needed: the vendor runs on 127.0.0.1. Each event is printed as one line, with a status"
          + " line on stderr. State goes to watukuy-demo.db and watukuy-demo.vendor.json in --dir: run it"
          + " again to resume where it stopped, delete both files to start over. Ctrl-C stops it."
    })
final class DemoCommand implements Callable<Integer> {
  static final String DB_FILE = "watukuy-demo.db";
  static final String VENDOR_FILE = "watukuy-demo.vendor.json";
  static final String POLLER = "issues";

  /** Items this recent wait for the next cycle: the vendor's timestamps have whole seconds. */
  static final Duration LAG = Duration.ofSeconds(2);

  static final int PER_PAGE = 5;
  static final Duration POLL_EVERY = Duration.ofSeconds(1);
  static final String DEFAULT_MUTATE_EVERY = "3s";
  static final String DEFAULT_RECONCILE_EVERY = "15s";
  static final String DEFAULT_STATUS_EVERY = "5s";

  private static final Pattern NEXT = Pattern.compile("<[^>]*>\\s*;\\s*rel=\"?next\"?");

  /** ANSI: clear from the cursor to the end of the line. */
  static final String CLEAR_TO_EOL = "\u001b[K";

  private final PrintStream out;
  private final PrintStream err;
  private final boolean terminal;
  private final AtomicLong printed = new AtomicLong();
  // Guards everything written to out and err, so an event line never lands inside the status line.
  private final Object screen = new Object();
  // The status line now drawn at the bottom of a terminal, or null; guarded by screen.
  private @Nullable String shown;

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description = "Folder of the demo database and vendor state (default: the current folder).")
  @Nullable Path dir;

  @Option(
      names = "--for",
      paramLabel = "DURATION",
      description = "Stop after this long (e.g. 30s, 5m) and exit 0 (default: run until Ctrl-C).")
  @Nullable String runFor;

  @Option(names = "--mutate-every", hidden = true, defaultValue = DEFAULT_MUTATE_EVERY)
  String mutateEvery;

  @Option(names = "--reconcile-every", hidden = true, defaultValue = DEFAULT_RECONCILE_EVERY)
  String reconcileEvery;

  @Option(names = "--status-every", hidden = true, defaultValue = DEFAULT_STATUS_EVERY)
  String statusEvery;

  @CommandLine.Mixin Cli.Verbose v;

  /**
   * @param terminal whether {@code err} is a terminal: then the status line is redrawn in place
   *     ({@code \r} and clear-to-end-of-line) instead of printed as a new line every time
   */
  DemoCommand(PrintStream out, PrintStream err, boolean terminal) {
    this.out = out;
    this.err = err;
    this.terminal = terminal;
  }

  /**
   * Whether this process writes to a terminal. {@code System.console()} is null when a stream is
   * redirected (Java 17 to 21); from Java 22 it may exist regardless, and {@code isTerminal()}
   * tells.
   */
  static boolean onTerminal() {
    Console console = System.console();
    if (console == null) return false;
    try {
      return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
    } catch (NoSuchMethodException e) {
      return true;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return false;
    }
  }

  @Override
  public Integer call() throws Exception {
    Duration bound;
    Duration mutate;
    Duration reconcile;
    Duration status;
    try {
      bound = runFor == null ? null : positive(runFor, "--for");
      mutate = positive(mutateEvery, "--mutate-every");
      reconcile = positive(reconcileEvery, "--reconcile-every");
      status = positive(statusEvery, "--status-every");
    } catch (IllegalArgumentException e) {
      err.println("watukuy demo: " + e.getMessage());
      return Main.USAGE;
    }
    Path folder = dir == null ? Path.of(".") : dir;
    if (!Files.isDirectory(folder)) {
      err.println("watukuy demo: --dir " + folder + ": no such folder");
      return Main.USAGE;
    }
    Path db = folder.resolve(DB_FILE);
    Path vendorFile = folder.resolve(VENDOR_FILE);

    try (DemoVendor vendor = new DemoVendor(vendorFile, Instant::now, mutate);
        StateStore store = SqliteStore.builder(db).build()) {
      store.migrate();
      long before = delivered(store);
      vendor.start();
      String base = vendor.baseUrl() + DemoVendor.PATH;
      err.println(
          "watukuy demo: vendor API at "
              + base
              + " ("
              + vendor.size()
              + " issues; "
              + (vendor.resumed() ? "same world as last time" : "a new world")
              + ", in "
              + vendorFile
              + ")");
      if (before > 0 || store.loadState(PollerKey.of(POLLER)).isPresent()) {
        err.println(
            "watukuy demo: resuming: " + before + " events already delivered, state in " + db);
      } else {
        err.println("watukuy demo: starting fresh, state in " + db);
      }
      err.println(
          "watukuy demo: polling every "
              + POLL_EVERY.toSeconds()
              + "s, reconcile every "
              + reconcile.toSeconds()
              + "s; "
              + (bound == null ? "Ctrl-C stops" : "stopping after " + runFor));

      Poller<JsonNode> poller = poller(base, reconcile);
      try (Watukuy engine =
          Watukuy.builder().store(store).poller(poller).handlerExecutor(Runnable::run).build()) {
        engine.on(poller, this::print);
        return runUntilStopped(engine, vendor, bound, status, before);
      }
    }
  }

  private int runUntilStopped(
      Watukuy engine, DemoVendor vendor, @Nullable Duration bound, Duration status, long before)
      throws InterruptedException {
    CountDownLatch stop = new CountDownLatch(1);
    Thread hook = new Thread(stop::countDown, "watukuy-demo-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    Signals.onTermination(stop::countDown);
    long end = bound == null ? Long.MAX_VALUE : System.nanoTime() + bound.toNanos();
    engine.start();
    try {
      while (true) {
        long left = end - System.nanoTime();
        long wait = Math.min(status.toNanos(), Math.max(0, left));
        if (stop.await(wait, TimeUnit.NANOSECONDS) || System.nanoTime() >= end) break;
        if (out.checkError()) {
          say(
              "watukuy demo: standard output is closed; stopping, the undelivered events stay pending");
          engine.stop(false);
          return Main.FAILED;
        }
        status(engine, vendor, before);
      }
      say("watukuy demo: stopping (delivering what is in flight)");
      engine.stop(true);
      status(engine, vendor, before);
      return Main.OK;
    } finally {
      endStatus();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // the JVM is already shutting down
      }
    }
  }

  // ---------------------------------------------------------------- the poller

  private Poller<JsonNode> poller(String base, Duration reconcileEvery) {
    Schedule every = new Schedule(POLL_EVERY, POLL_EVERY, 0.0, false, Backoff.DEFAULT_POLL);
    return Poller.builder(POLLER, JsonNode.class)
        .identity(issue -> issue.path("number").asText())
        .version(issue -> issue.path("updated_at").asText())
        .retain(Retain.PAYLOAD)
        .schedule(every)
        .cursor(Cursors.timestamp("updated_at").tieBreak("number").lag(LAG).build())
        .fetch((FetchContext<Watermark> ctx) -> changedSince(ctx, base))
        .reconcile(Reconcile.every(reconcileEvery, ctx -> everything(ctx, base)))
        .build();
  }

  /** The live lane: issues updated at or after the watermark, oldest first, keyset on number. */
  private static Page<JsonNode> changedSince(FetchContext<Watermark> ctx, String base) {
    Watermark w = ctx.cursor();
    RequestOptions options =
        RequestOptions.builder()
            .query("since", w == null ? null : w.value())
            .query("after", w == null ? null : w.tieBreak())
            .query("state", "all")
            .query("sort", "updated")
            .query("direction", "asc")
            .query("per_page", PER_PAGE)
            .build();
    return page(ctx.http().get(base, options));
  }

  /**
   * The reconcile lane: every issue; what it no longer lists was deleted. In pages of the most the
   * vendor serves, so the whole world (at most {@link DemoVendor#MAX_ISSUES}) is one response: a
   * listing by page numbers that spans pages is no snapshot, and a delete on an earlier page
   * between two requests would move an issue across the page boundary unseen and report it deleted.
   */
  private static Page<JsonNode> everything(FetchContext<Integer> ctx, String base) {
    Integer page = ctx.cursor();
    RequestOptions options =
        RequestOptions.builder()
            .query("state", "all")
            .query("sort", "created")
            .query("direction", "asc")
            .query("per_page", DemoVendor.MAX_PER_PAGE)
            .query("page", page == null ? ctx.page() : page)
            .build();
    return page(ctx.http().get(base, options));
  }

  // More pages exist exactly when the Link header has rel="next", as on GitHub.
  private static Page<JsonNode> page(HttpResult result) {
    JsonNode body = result.json();
    if (!body.isArray())
      throw new IllegalStateException("GET " + result.url() + ": the body is not a JSON array");
    List<JsonNode> items = new ArrayList<>(body.size());
    body.forEach(items::add);
    String link = result.header("Link");
    return Page.of(items).withHasMore(link != null && NEXT.matcher(link).find());
  }

  // ---------------------------------------------------------------- printing

  private void print(ChangeEvent<JsonNode> e) throws IOException {
    String line = line(e);
    synchronized (screen) {
      takeDown();
      out.println(line);
      out.flush();
      putBack();
      // PrintStream swallows I/O errors; a failed write must leave the event pending.
      if (out.checkError()) throw new IOException("standard output: write failed (closed pipe?)");
    }
    printed.incrementAndGet();
  }

  /** A message line on stderr, below the events, with the status line kept at the bottom. */
  private void say(String message) {
    synchronized (screen) {
      takeDown();
      err.println(message);
      err.flush();
      putBack();
    }
  }

  /** On a terminal, replaces the status line in place; otherwise prints it as a line of its own. */
  private void showStatus(String text) {
    synchronized (screen) {
      if (!terminal) {
        err.println(text);
        return;
      }
      shown = text;
      err.print("\r" + text + CLEAR_TO_EOL);
      err.flush();
    }
  }

  // Wipes the status line so the next line is written where it was (terminal only).
  private void takeDown() {
    if (shown == null) return;
    err.print("\r" + CLEAR_TO_EOL);
    err.flush();
  }

  private void putBack() {
    if (shown == null) return;
    err.print("\r" + shown + CLEAR_TO_EOL);
    err.flush();
  }

  /** Leaves the last status line on screen and moves past it, so the shell prompt starts below. */
  private void endStatus() {
    synchronized (screen) {
      if (shown == null) return;
      err.println();
      err.flush();
      shown = null;
    }
  }

  /** One readable line, ending with the first 8 hex digits of the event id. */
  static String line(ChangeEvent<JsonNode> e) {
    JsonNode now = e.data();
    JsonNode was = e.previous();
    String what;
    if (e.type() == EventType.CREATED) {
      what = summary(now);
    } else if (e.type() == EventType.DELETED) {
      what = now == null ? "" : quote(now.path("title").asText());
    } else {
      List<String> changes = new ArrayList<>();
      if (now != null && was != null) {
        for (String field : List.of("title", "state")) {
          String a = was.path(field).asText();
          String b = now.path(field).asText();
          if (!a.equals(b)) {
            changes.add(
                field.equals("title")
                    ? "title " + quote(a) + " -> " + quote(b)
                    : field + " " + a + " -> " + b);
          }
        }
      }
      what = changes.isEmpty() ? summary(now) : String.join(", ", changes);
    }
    String lane = e.lane() == Lane.LIVE ? "" : "  via " + e.lane().wire();
    return String.format(
        Locale.ROOT,
        "%-8s #%-4s %s%s  [%s]",
        e.type().wire(),
        e.identity(),
        what,
        lane,
        e.id().substring(0, 8));
  }

  private static String summary(@Nullable JsonNode issue) {
    if (issue == null) return "";
    return quote(issue.path("title").asText()) + " (" + issue.path("state").asText() + ")";
  }

  private static String quote(String s) {
    return "\"" + s + "\"";
  }

  private void status(Watukuy engine, DemoVendor vendor, long before) {
    KeyInspection k = engine.inspect().poller(POLLER).orElse(null);
    long run = printed.get();
    String lag =
        k == null || k.lagMs() == null
            ? "-"
            : SinkConfig.formatDuration(Duration.ofMillis(k.lagMs()));
    String state = k == null ? "new" : k.state().wire();
    String error =
        k == null || k.lastError() == null ? "" : ", last error: " + k.lastError().message();
    showStatus(
        "status: 1 poller ("
            + state
            + "), "
            + run
            + " events this run, "
            + (before + run)
            + " in all, lag "
            + lag
            + ", pending "
            + (k == null ? 0 : k.outboxPending())
            + ", vendor has "
            + vendor.size()
            + " issues"
            + error);
  }

  /**
   * Events delivered by earlier runs: every sequence handed out, less those still pending or
   * parked.
   */
  private static long delivered(StateStore store) {
    PollerKey key = PollerKey.of(POLLER);
    PollerState state = store.loadState(key).orElse(null);
    if (state == null) return 0;
    return Math.max(0, state.lastSequence() - store.countPending(key) - store.countParked(key));
  }

  private static Duration positive(String text, String option) {
    Duration d;
    try {
      d = SinkConfig.parseDuration(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
    }
    if (d.isZero()) throw new IllegalArgumentException(option + ": must be longer than 0");
    return d;
  }
}
