package io.watukuy.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.DeliveryPolicy;
import io.watukuy.EventLog;
import io.watukuy.EventType;
import io.watukuy.KeyInspection;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RetryPolicy;
import io.watukuy.Schedule;
import io.watukuy.Watukuy;
import io.watukuy.effects.Effect;
import io.watukuy.effects.EffectState;
import io.watukuy.effects.Effects;
import io.watukuy.effects.Key;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.FakeApi;
import io.watukuy.testing.SeededRandom;
import io.watukuy.testing.VirtualClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard ({@code GET /}; docs/operations.md, "Dashboard") in a real headless Chromium,
 * driven by Selenium through Debian's chromedriver, against a running engine served by {@link
 * AdminServer}: an event parked by a failing handler is retried from the page, delivered, and the
 * page's parked count falls to 0. One browser for the class; the engine runs on a virtual clock and
 * the test ticks it, so only the browser's own rendering is waited for (at most {@link #WAIT}).
 *
 * <p>Needs {@code /usr/bin/chromium} and {@code /usr/bin/chromedriver} (scripts/services installs
 * Debian's {@code chromium} and {@code chromium-driver}). Without them the test is skipped, except
 * under {@code CI=true}, where it fails: the dashboard is never left untested in CI.
 */
class DashboardBrowserTest {
  /** Debian's browser; {@code -Dwatukuy.chromium=PATH} names another. */
  static final Path CHROMIUM = Path.of(System.getProperty("watukuy.chromium", "/usr/bin/chromium"));

  /** Debian's driver, of the same build as the browser; {@code -Dwatukuy.chromedriver=PATH}. */
  static final Path CHROMEDRIVER =
      Path.of(System.getProperty("watukuy.chromedriver", "/usr/bin/chromedriver"));

  /** The longest the test waits for the page: a refresh every 5 s, twice, and some margin. */
  static final Duration WAIT = Duration.ofSeconds(15);

  /** Where the screenshot goes; scripts/dashboard-screenshot copies it into docs/. */
  static final Path SCREENSHOT = Path.of("target", "dashboard.png");

  /** The page with a wedged effect and its stuck lane; copied into docs/ by the same script. */
  static final Path EFFECTS_SCREENSHOT = Path.of("target", "dashboard-effects.png");

  /** A handler's error with markup in it: the page must show it as text, never as HTML. */
  static final String HOSTILE = "refused <img src=x id=injected> by the ledger";

  /** Why the browser was not started outside CI, or null. */
  static String skipped;

  static ChromeDriverService driverService;
  static WebDriver browser;

  final VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z");
  final FakeApi ordersApi = new FakeApi(clock);
  final FakeApi ticketsApi = new FakeApi(clock);
  final AtomicBoolean failing = new AtomicBoolean(true);
  final List<String> delivered = new CopyOnWriteArrayList<>();
  final MemoryStore store = new MemoryStore();
  Poller<JsonNode> orders;
  Watukuy engine;
  AdminServer admin;
  Effects effects;

  @BeforeAll
  static void startBrowser() throws IOException {
    if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
      String missing =
          "the dashboard's browser test needs "
              + CHROMIUM
              + " and "
              + CHROMEDRIVER
              + " (scripts/services installs Debian's chromium and chromium-driver)";
      if ("true".equalsIgnoreCase(System.getenv("CI"))) fail(missing + "; under CI=true it fails");
      // each test is then skipped with this message (an assumption here would hide it)
      skipped = missing + "; skipped outside CI";
      return;
    }
    Path target = Files.createDirectories(Path.of("target"));
    Path profile = Files.createTempDirectory(target, "chromium-profile-");
    // The driver and the browser given explicitly: Selenium Manager, which would download them,
    // is never asked.
    driverService =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(CHROMEDRIVER.toFile())
            .usingAnyFreePort()
            .withLogOutput(java.io.OutputStream.nullOutputStream())
            .build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--no-first-run",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--window-size=1400,760",
        "--user-data-dir=" + profile.toAbsolutePath());
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    options.setCapability("goog:loggingPrefs", logs);
    browser = new ChromeDriver(driverService, options);
  }

  @AfterAll
  static void stopBrowser() {
    if (browser != null) browser.quit();
    if (driverService != null) driverService.stop();
  }

  @BeforeEach
  void startEngine() {
    assumeTrue(skipped == null, skipped);
    Schedule every30s = Schedule.every(Duration.ofSeconds(30)).withAdaptive(false).withJitter(0);
    orders =
        Poller.builder("orders", JsonNode.class)
            .identity(n -> n.get("id"))
            .version(n -> n.get("updatedAt").asText() + "#" + n.get("rev").asText())
            .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
            .fetch(ordersApi.timestampFetcher(10))
            .schedule(every30s)
            // the event log the effect of the effects case reads
            .log(EventLog.keep(Duration.ofDays(7)))
            // one attempt, then parked: one tick parks the event
            .delivery(DeliveryPolicy.DEFAULT.withRetry(RetryPolicy.attempts(1)))
            .build();
    Poller<JsonNode> tickets =
        Poller.builder("tickets", JsonNode.class)
            .identity(n -> n.get("id"))
            .version(n -> n.get("updatedAt").asText() + "#" + n.get("rev").asText())
            .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
            .fetch(ticketsApi.timestampFetcher(10))
            .schedule(every30s)
            .build();
    engine =
        Watukuy.builder()
            .store(store)
            .time(clock)
            .random(SeededRandom.of(7))
            .instanceId("dashboard")
            .executor(Runnable::run)
            .handlerExecutor(Runnable::run)
            .delivery(new DeliveryOptions(1, DeliveryOptions.DEFAULT_DISPATCH_BATCH_SIZE))
            .poller(orders)
            .poller(tickets)
            .build()
            .on(orders, this::deliver)
            .on(tickets, e -> {});
  }

  /** Starts the admin server on a free loopback port and returns the dashboard's address. */
  private String serve(AdminServer.Builder builder) {
    admin = builder.bind("127.0.0.1", 0).build();
    admin.start();
    return "http://127.0.0.1:" + admin.port() + "/";
  }

  private void deliver(ChangeEvent<JsonNode> event) {
    if (failing.get()) throw new IllegalStateException(HOSTILE);
    delivered.add(event.identity() + ":" + event.type().wire());
  }

  @AfterEach
  void stopEngine() {
    if (admin != null) admin.close();
    if (effects != null) effects.close();
    if (engine != null) engine.close();
  }

  @Test
  void retryFromThePageDeliversTheParkedEventAndTheCountFallsToZero() throws IOException {
    ordersApi.put("o001", Map.of("total", 12));
    ticketsApi.failNext(1, () -> new IllegalStateException("503 from <b>tickets.example</b>"));
    engine.tick();
    clock.advance(Duration.ofSeconds(90));
    KeyInspection before = engine.inspect().poller("orders").orElseThrow();
    assertThat(before.parked()).isEqualTo(1);
    assertThat(delivered).isEmpty();
    browser.get(serve(AdminServer.builder(engine)));
    WebDriverWait wait = new WebDriverWait(browser, WAIT);
    wait.until(d -> text("#keys tr[data-key='orders'] td.parked").equals("1"));

    // the row of each key, with what the engine holds: orders last succeeded 90 s ago, its
    // watermark is the item's updatedAt (90 s ago), 1 parked; the failed poll of tickets is its
    // last error, 90 s ago, and makes it failing
    assertThat(text("#keys tr[data-key='orders'] th.poller")).isEqualTo("orders");
    assertThat(text("#keys tr[data-key='orders'] td.state")).isEqualTo("idle");
    assertThat(text("#keys tr[data-key='orders'] td.freshness")).isEqualTo("1m 30s");
    assertThat(text("#keys tr[data-key='orders'] td.lag")).isEqualTo("1m 30s");
    assertThat(text("#keys tr[data-key='orders'] td.outbox")).isEqualTo("0");
    assertThat(text("#keys tr[data-key='tickets'] td.health")).isEqualTo("failing");
    assertThat(text("#keys tr[data-key='tickets'] td.last-error"))
        .contains("503 from <b>tickets.example</b>");
    assertThat(text("#keys tr[data-key='tickets'] td.time")).startsWith("1m 30s ago");
    assertThat(text("#parked tbody tr[data-key='orders'] td.parked-error")).contains(HOSTILE);
    // what the vendor and the handler wrote stayed text: no element was made of it
    assertThat(browser.findElements(By.cssSelector("img, b, #injected"))).isEmpty();
    saveScreenshot(SCREENSHOT);

    failing.set(false);
    click("#parked tbody tr[data-key='orders'] button[aria-label^='Retry parked']");
    // the retry put the event back into the outbox: parked 0, pending 1, until the next run
    wait.until(
        d ->
            text("#keys tr[data-key='orders'] td.parked").equals("0")
                && text("#keys tr[data-key='orders'] td.outbox").equals("1"));
    assertThat(browser.findElement(By.id("parked-empty")).isDisplayed()).isTrue();
    engine.tick();
    assertThat(delivered).containsExactly("o001:created");
    // the page refreshes itself (every 5 s) and shows the outbox drained
    wait.until(d -> text("#keys tr[data-key='orders'] td.outbox").equals("0"));
    assertThat(engine.inspect().poller("orders").orElseThrow().parked()).isZero();
    // pause from the page: the engine holds the key paused, the page offers resume
    click("#keys tr[data-key='tickets'] button[aria-label='Pause tickets']");
    wait.until(d -> text("#keys tr[data-key='tickets'] td.state").equals("paused (manual)"));
    assertThat(engine.inspect().key(PollerKey.of("tickets")).orElseThrow().paused()).isNotNull();
    click("#keys tr[data-key='tickets'] button[aria-label='Resume tickets']");
    wait.until(d -> !text("#keys tr[data-key='tickets'] td.state").startsWith("paused"));
    assertThat(engine.inspect().key(PollerKey.of("tickets")).orElseThrow().paused()).isNull();
    assertThat(cspViolations()).isEmpty();
  }

  @Test
  void aServerWithATokenGetsItFromTheFormOnThePage() {
    engine.tick(); // the key's first state: inspect lists it from then on
    String token = "0123456789abcdef0123456789abcdef";
    browser.get(serve(AdminServer.builder(engine).token(token)));
    WebDriverWait wait = new WebDriverWait(browser, WAIT);
    // the files load without the token; the first API call is refused and the form appears
    wait.until(d -> d.findElement(By.id("token-form")).isDisplayed());
    assertThat(text("#summary")).contains("401");
    assertThat(browser.findElements(By.cssSelector("#keys tbody tr"))).isEmpty();

    browser.findElement(By.id("token")).sendKeys(token);
    browser.findElement(By.cssSelector("#token-form button[type='submit']")).click();
    wait.until(d -> text("#keys tr[data-key='orders'] th.poller").equals("orders"));
    assertThat(browser.findElement(By.id("token-form")).isDisplayed()).isFalse();
    // the field was emptied: the token lives in the page's script only
    assertThat(browser.findElement(By.id("token")).getDomProperty("value")).isEmpty();

    click("#keys tr[data-key='orders'] button[aria-label='Pause orders']");
    wait.until(d -> text("#keys tr[data-key='orders'] td.state").equals("paused (manual)"));
    assertThat(engine.inspect().poller("orders").orElseThrow().paused()).isNotNull();
  }

  @Test
  void aLaneInFlightForThirtySecondsIsShownRunningWithoutASkip() throws InterruptedException {
    failing.set(false);
    ordersApi.put("o001", Map.of("total", 12));
    engine.tick(); // position 1 in the orders log
    try (HeldCall call = new HeldCall()) {
      Effect<JsonNode> held = call.effect("NotifyCustomer", orders);
      effects = Effects.builder(store).time(clock).workers(call.worker).add(held).build();
      effects.start();
      assertThat(call.started(WAIT)).isTrue();
      clock.advance(Duration.ofSeconds(31));
      browser.get(serve(AdminServer.builder(engine).effects(effects)));
      WebDriverWait wait = new WebDriverWait(browser, WAIT);
      String row = "#stuck tr.in-flight[data-position='1'] ";
      wait.until(d -> !browser.findElements(By.cssSelector(row)).isEmpty());
      assertThat(text(row + "td.lane")).isEqualTo("identity:o001");
      assertThat(text(row + "td.running")).isEqualTo("running 31 s");
      assertThat(text(row + "td.attempt")).isEqualTo("1");
      assertThat(browser.findElements(By.cssSelector(row + "button"))).isEmpty();
      assertThat(browser.findElement(By.id("stuck-empty")).isDisplayed()).isFalse();
      assertThat(cspViolations()).isEmpty();
    }
  }

  @Test
  void aStuckLaneWhoseRetryRunsIsOneRowRunningWithoutButtons() throws InterruptedException {
    failing.set(false);
    ordersApi.put("o001", Map.of("total", 12));
    engine.tick(); // position 1 in the orders log
    java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch proceed = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.atomic.AtomicInteger attempts =
        new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.ExecutorService worker =
        java.util.concurrent.Executors.newSingleThreadExecutor();
    try {
      Effect<JsonNode> retried =
          Effect.builder("NotifyCustomer")
              .source(orders)
              .on(
                  EventType.CREATED,
                  (ctx, e) -> {
                    if (attempts.incrementAndGet() == 1)
                      throw new IllegalStateException("CRM answered 503");
                    started.countDown();
                    proceed.await();
                  },
                  Key.identity())
              .build();
      effects = Effects.builder(store).time(clock).workers(worker).add(retried).build();
      effects.start();
      long failed = System.nanoTime() + WAIT.toNanos();
      while (effects.status("NotifyCustomer").state() != EffectState.WEDGED) {
        assertThat(System.nanoTime()).as("the first attempt fails").isLessThan(failed);
        Thread.sleep(2);
      }
      assertThat(effects.retryNow("NotifyCustomer")).isEqualTo(1);
      assertThat(started.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      clock.advance(Duration.ofSeconds(43));
      browser.get(serve(AdminServer.builder(engine).effects(effects)));
      WebDriverWait wait = new WebDriverWait(browser, WAIT);
      String row = "#stuck tr[data-position='1'] ";
      wait.until(d -> !browser.findElements(By.cssSelector(row)).isEmpty());
      // one row for the lane: stuck, its retry running, nothing to click until the attempt ends
      assertThat(browser.findElements(By.cssSelector("#stuck tbody tr"))).hasSize(1);
      assertThat(text(row + "td.running")).isEqualTo("running 43 s");
      assertThat(text(row + "td.attempt")).isEqualTo("2");
      assertThat(text(row + "td.stuck-error")).isEqualTo("IllegalStateException: CRM answered 503");
      assertThat(browser.findElements(By.cssSelector(row + "button"))).isEmpty();
      assertThat(text("#effects tr[data-effect='NotifyCustomer'] td.state")).isEqualTo("wedged");
      assertThat(cspViolations()).isEmpty();
    } finally {
      proceed.countDown();
      worker.shutdown();
    }
  }

  /**
   * Orders o001 and o002 logged at positions 1 and 2, and effect NotifyCustomer (one lane per item)
   * whose arm throws {@code message} for o002 only.
   */
  private Effect<JsonNode> failingAtO002(String message) {
    failing.set(false);
    ordersApi.put("o001", Map.of("total", 12));
    ordersApi.put("o002", Map.of("total", 40));
    engine.tick();
    return Effect.builder("NotifyCustomer")
        .source(orders)
        .on(
            EventType.CREATED,
            (ctx, e) -> {
              if (e.identity().equals("o002")) throw new IllegalStateException(message);
            },
            Key.identity())
        .build();
  }

  @Test
  void aStuckLaneOfAnEffectIsSkippedFromThePage() throws InterruptedException, IOException {
    Effect<JsonNode> notify = failingAtO002(HOSTILE);
    // the reader on its own thread, on the virtual clock: the failed lane waits for a skip
    effects = Effects.builder(store).time(clock).workers(Runnable::run).add(notify).build();
    effects.start();
    browser.get(serve(AdminServer.builder(engine).effects(effects)));
    WebDriverWait wait = new WebDriverWait(browser, WAIT);
    String row = "#effects tr[data-effect='NotifyCustomer'] ";
    wait.until(d -> text(row + "td.state").equals("wedged"));
    assertThat(text(row + "td.position")).isEqualTo("1");
    assertThat(text(row + "td.lag")).isEqualTo("1");
    assertThat(text(row + "td.wedged")).isEqualTo("1");
    assertThat(text(row + "td.effect-error")).isEqualTo("IllegalStateException: " + HOSTILE);
    String stuck = "#stuck tr[data-position='2'] ";
    assertThat(text(stuck + "td.lane")).isEqualTo("identity:o002");
    assertThat(text(stuck + "td.retry-in")).isEqualTo("200 ms"); // the first backoff
    assertThat(browser.findElements(By.cssSelector("img, b, #injected"))).isEmpty();
    saveScreenshot(EFFECTS_SCREENSHOT);

    // Retry now runs the lane again at once: the virtual clock never reaches its 200 ms
    click(stuck + "button[aria-label='Retry position 2 of NotifyCustomer now']");
    wait.until(d -> text("#notice").equals("Retry position 2 of NotifyCustomer now: done"));
    long retried = System.nanoTime() + WAIT.toNanos();
    while (effects.status("NotifyCustomer").sources().get(0).stuckLanes().stream()
        .noneMatch(l -> l.attempt() == 2)) {
      assertThat(System.nanoTime()).as("retry now runs the lane again").isLessThan(retried);
      Thread.sleep(2);
    }

    click(stuck + "button[aria-label='Skip position 2 of NotifyCustomer']");
    wait.until(ExpectedConditions.alertIsPresent()).accept();
    wait.until(d -> text("#notice").equals("Skip position 2 of NotifyCustomer: done"));
    // the engine's side, without waiting for the page's next refresh
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (effects.status("NotifyCustomer").state() != EffectState.OK) {
      assertThat(System.nanoTime()).as("the skip releases the lane").isLessThan(deadline);
      Thread.sleep(2);
    }
    assertThat(effects.status("NotifyCustomer").position()).isEqualTo(2);
    assertThat(cspViolations()).isEmpty();
  }

  @Test
  void anEngineWithoutTheLeaseShowsTheWedgeFromTheStoreAndOffersOnlyASkip()
      throws InterruptedException {
    Effect<JsonNode> notify = failingAtO002("refused");
    effects = Effects.builder(store).time(clock).workers(Runnable::run).add(notify).build();
    effects.start();
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (effects.status("NotifyCustomer").state() != EffectState.WEDGED) {
      assertThat(System.nanoTime()).as("the holder wedges at 2").isLessThan(deadline);
      Thread.sleep(2);
    }
    // a second daemon on the same store: it holds no lease, so it reads the effect from the store
    try (Effects other =
        Effects.builder(store)
            .time(clock)
            .workers(Runnable::run)
            .instanceId("engine-2")
            .add(notify)
            .build()) {
      browser.get(serve(AdminServer.builder(engine).effects(other)));
      WebDriverWait wait = new WebDriverWait(browser, WAIT);
      String row = "#effects tr[data-effect='NotifyCustomer'] ";
      wait.until(
          d ->
              text(row + "td.state").equals("wedged (run by another engine, read from the store)"));
      assertThat(text(row + "td.position")).isEqualTo("1");
      String stuck = "#stuck tr[data-position='2'] ";
      assertThat(text(stuck + "td.lane")).isEqualTo("identity:o002");
      // retry now needs the engine that holds the lanes; a skip is a stored request
      assertThat(browser.findElements(By.cssSelector(stuck + "button[aria-label^='Retry']")))
          .isEmpty();
      assertThat(browser.findElements(By.cssSelector(stuck + "button[aria-label^='Skip']")))
          .hasSize(1);
      assertThat(cspViolations()).isEmpty();
    }
  }

  /** The text of the one element the selector finds, or "" while there is none. */
  private static String text(String css) {
    List<WebElement> found = browser.findElements(By.cssSelector(css));
    try {
      return found.isEmpty() ? "" : found.get(0).getText();
    } catch (StaleElementReferenceException e) {
      return ""; // the page re-rendered between the find and the read: ask again
    }
  }

  /** Clicks the button the selector finds, again if the page re-rendered under the click. */
  private static void click(String css) {
    new WebDriverWait(browser, WAIT)
        .until(
            d -> {
              List<WebElement> found = d.findElements(By.cssSelector(css));
              if (found.isEmpty()) return false;
              try {
                found.get(0).click();
                return true;
              } catch (StaleElementReferenceException e) {
                return false;
              }
            });
  }

  private static List<String> cspViolations() {
    return browser.manage().logs().get(LogType.BROWSER).getAll().stream()
        .map(LogEntry::getMessage)
        .filter(m -> m.contains("Content Security Policy") || m.contains("Refused to"))
        .toList();
  }

  private static void saveScreenshot(Path to) throws IOException {
    Path png = ((ChromeDriver) browser).getScreenshotAs(OutputType.FILE).toPath();
    Files.copy(png, to, StandardCopyOption.REPLACE_EXISTING);
  }
}
