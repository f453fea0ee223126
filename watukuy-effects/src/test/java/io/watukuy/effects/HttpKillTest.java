package io.watukuy.effects;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.JournalEntry;
import io.watukuy.store.sqlite.SqliteStore;
import io.watukuy.testing.ChildJvm;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/effects.md, "The journal" and "HTTP calls", across a real SIGKILL: an arm makes three
 * journaled HTTP calls to a local server, which holds the third until the test has killed the
 * process. The next process replays the first two from the journal and sends only the third, again:
 * the one repeat a crash between a call's effect and its row may cause, with the same {@code
 * Idempotency-Key}. The same holds when the arm is reordered between the runs.
 */
class HttpKillTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path dir;
  private HttpServer server;
  private ExecutorService serverThreads;
  private final Map<String, Integer> received = new ConcurrentHashMap<>();
  private final List<String> call3Keys = new CopyOnWriteArrayList<>();
  private final CountDownLatch thirdCallHeld = new CountDownLatch(1);
  private final CountDownLatch childKilled = new CountDownLatch(1);

  @BeforeEach
  void startServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    serverThreads = Executors.newCachedThreadPool();
    server.setExecutor(serverThreads);
    server.createContext("/", this::handle);
    server.start();
  }

  @AfterEach
  void stopServer() {
    childKilled.countDown();
    server.stop(0);
    serverThreads.shutdownNow();
  }

  private void handle(HttpExchange ex) throws IOException {
    String call = ex.getRequestURI().getPath().substring(1);
    ex.getRequestBody().readAllBytes();
    int n = received.merge(call, 1, Integer::sum);
    if (call.equals("call3")) {
      call3Keys.add(ex.getRequestHeaders().getFirst("Idempotency-Key"));
      if (n == 1) {
        // The call reached its receiver; the process dies before the answer and the journal row.
        thirdCallHeld.countDown();
        try {
          childKilled.await(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
    ex.sendResponseHeaders(200, -1);
    ex.close();
  }

  @Test
  void afterAKillDuringTheThirdOfThreeCallsOnlyTheThirdFiresAgain() throws Exception {
    killDuringThirdCallThenRestart("123", "123");
  }

  @Test
  void anArmReorderedBetweenTheRunsReplaysTheSameCallsFromTheJournal() throws Exception {
    killDuringThirdCallThenRestart("123", "312");
  }

  private void killDuringThirdCallThenRestart(String firstOrder, String secondOrder)
      throws Exception {
    Path db = dir.resolve("effects.db");
    try (SqliteStore store = SqliteStore.open(db)) {
      new EffectFixture<>(store).created("c-42");
    }
    String base = "http://127.0.0.1:" + server.getAddress().getPort();
    Path out = dir.resolve("child.out");
    Path marker = dir.resolve("done");

    try (ChildJvm first = child(db, base, firstOrder, out, marker)) {
      assertThat(thirdCallHeld.await(WAIT.toSeconds(), TimeUnit.SECONDS))
          .as("the third call reached the server; child output:\n%s", ChildJvm.tail(out, 40))
          .isTrue();
      assertThat(first.sigkill()).isEqualTo(ChildJvm.SIGKILL_EXIT);
    }
    childKilled.countDown();
    assertThat(received).isEqualTo(Map.of("call1", 1, "call2", 1, "call3", 1));

    try (ChildJvm second = child(db, base, secondOrder, out, marker)) {
      assertThat(second.awaitExit(WAIT))
          .as("the second run completed; output:\n%s", ChildJvm.tail(out, 40))
          .isTrue();
      assertThat(second.exitValue()).as(ChildJvm.tail(out, 40)).isZero();
    }
    assertThat(Files.readString(marker)).contains("done");
    // The first two from the journal; the third once more, as docs/effects.md allows, and no more.
    assertThat(received).isEqualTo(Map.of("call1", 1, "call2", 1, "call3", 2));
    assertThat(call3Keys).hasSize(2).doesNotContainNull();
    assertThat(call3Keys.get(1)).isEqualTo(call3Keys.get(0));
    try (SqliteStore store = SqliteStore.open(db)) {
      assertThat(new EffectFixture<>(store).row("Notify", 1).orElseThrow().status())
          .isEqualTo(InvocationStatus.DONE);
      // Both runs sent the key of this event's call, not the bare journal key.
      JournalEntry call3 =
          new EffectFixture<>(store)
              .effects.listJournal("Notify", EffectFixture.ORDERS, 1, 0, 10).stream()
                  .filter(e -> e.label().endsWith("/call3"))
                  .findFirst()
                  .orElseThrow();
      assertThat(call3Keys.get(0)).isEqualTo(JournaledHttpTest.idempotencyKey(1, call3.callKey()));
    }
  }

  private static ChildJvm child(Path db, String base, String order, Path out, Path marker)
      throws IOException {
    return ChildJvm.start(
        HttpKillChild.class,
        List.of("-Xmx128m"),
        out,
        db.toString(),
        base,
        order,
        marker.toString());
  }
}
