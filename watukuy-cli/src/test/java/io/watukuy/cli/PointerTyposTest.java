package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pointer typo must not pass in silence, and a correct config must not be flagged
 * (docs/operations.md, "Pointer typos").
 */
class PointerTyposTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void aNearNameDifferingOnlyInCaseOrSeparatorsIsSuggestedInTheConfigsOwnNotation()
      throws IOException {
    JsonNode doc = JSON.readTree("{\"last_seq\":\"5\",\"Meta\":{\"updated-at\":\"x\"},\"id\":1}");

    assertThat(PointerChecks.didYouMean(Locator.parse("/lastSeq"), doc)).isEqualTo("/last_seq");
    assertThat(PointerChecks.didYouMean(Locator.parse("meta.updatedAt"), doc))
        .isEqualTo("Meta.updated-at");
    assertThat(PointerChecks.didYouMean(Locator.parse("/id"), doc)).isNull(); // found: no typo
    assertThat(PointerChecks.didYouMean(Locator.parse("/seq"), doc)).isNull(); // nothing near
  }

  @Test
  void aTokenPointerTypoIsAWarningWithDidYouMean() throws IOException {
    String err =
        run(
            "{\"results\":[{\"id\":\"a\"}],\"last_seq\":\"5\"}",
            "response: { items: /results, next: /lastSeq }",
            "cursor: { strategy: token }");

    assertThat(err)
        .containsOnlyOnce(
            // In-process the log line's prefix is the test JVM's; BadInputTest checks the real one.
            "poller feed: response.next /lastSeq is not in the response; did you mean /last_seq?");
  }

  @Test
  void aNextUrlPointerTypoIsAWarningWithDidYouMean() throws IOException {
    // Without the warning every listing would end after its first page, in silence.
    String err =
        run(
            "{\"results\":[{\"id\":\"a\"}],\"links\":{\"next\":\"/feed?since=2\"}}",
            "response: { items: /results, next: { url: /Links/next } }",
            "cursor: { strategy: snapshotDiff }");

    assertThat(err)
        .containsOnlyOnce(
            "poller feed: response.next /Links/next is not in the response; did you mean"
                + " /links/next?");
  }

  @Test
  void aTokenPointerThatIsMissingWhileMorePagesAreAnnouncedFailsThePage() throws IOException {
    // hasMore: nonEmpty says more follow, but the token is under another name: without the
    // check, every cycle would read page 1 again and exit 0.
    String err =
        run(
            "{\"results\":[{\"id\":\"a\"}],\"continuation\":\"t2\"}",
            "response: { items: /results, hasMore: nonEmpty, next: /cursor }",
            "cursor: { strategy: token }");

    assertThat(err)
        .contains(
            "response.next /cursor is not in the response although response.hasMore says more"
                + " pages follow; fix the pointer");
  }

  @Test
  void aTotalPointerTypoIsAWarningWithDidYouMean() throws IOException {
    String err =
        run(
            "{\"data\":[{\"id\":\"a\"}],\"total\":1}",
            "response: { items: /data, total: /Total }",
            "cursor: { strategy: snapshotDiff }");

    assertThat(err)
        .contains(
            "poller feed: response.total /Total is not in the response; did you mean /total?");
  }

  @Test
  void aDeletedPointerWithEqualsThatNoItemHasIsAWarning() throws IOException {
    String err =
        run(
            "[{\"id\":\"a\",\"state\":\"removed\"}]",
            "response: { items: \"\" }\n    deleted: { pointer: /status, equals: removed }",
            "cursor: { strategy: snapshotDiff }");

    assertThat(err)
        .contains(
            "poller feed: deleted /status is in none of the 1 items of this page, so none can match"
                + " equals \"removed\"");
  }

  @Test
  void aDeletedValueThatIsNotABooleanIsAWarning() throws IOException {
    String err =
        run(
            "[{\"id\":\"a\",\"deleted\":\"yes\"}]",
            "response: { items: \"\" }\n    deleted: /deleted",
            "cursor: { strategy: snapshotDiff }");

    assertThat(err).contains("poller feed: deleted /deleted is \"yes\" in an item, not a boolean");
  }

  @Test
  void aPlainDeletedPointerAbsentFromLiveRowsAndCorrectPointersAreNotFlagged() throws IOException {
    // CouchDB sets _deleted only on deleted rows: its absence is normal.
    String err =
        run(
            "{\"results\":[{\"id\":\"a\",\"rev\":\"1\"}],\"last_seq\":\"5\"}",
            "response: { items: /results, next: /last_seq }\n    version: /rev\n    deleted: /_deleted",
            "cursor: { strategy: token }");

    assertThat(err).doesNotContain("warning");
  }

  /** Runs a poller named feed once against a server answering {@code body}; returns stderr. */
  private String run(String body, String response, String cursor) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/feed",
        ex -> {
          // Only the first request gets items, so a token listing ends.
          byte[] bytes =
              (ex.getRequestURI().getQuery() == null ? body : "{\"results\":[]}")
                  .getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().set("Content-Type", "application/json");
          ex.sendResponseHeaders(200, bytes.length);
          ex.getResponseBody().write(bytes);
          ex.close();
        });
    server.start();
    PrintStream jvmErr = System.err;
    ByteArrayOutputStream logs = new ByteArrayOutputStream();
    try {
      Path config =
          Files.writeString(
              dir.resolve("watukuy.yaml"),
              """
              store: memory
              pollers:
                - name: feed
                  request: { url: "http://127.0.0.1:%d/feed", query: { since: "{{cursor.value}}" } }
                  %s
                  identity: /id
                  %s
              """
                  .formatted(server.getAddress().getPort(), response, cursor));
      System.setErr(new PrintStream(logs, true, StandardCharsets.UTF_8));
      Main.run(
          new String[] {"run", config.toString(), "--once"},
          new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
          System.err,
          Map.<String, String>of()::get);
    } finally {
      System.setErr(jvmErr);
      server.stop(0);
    }
    return logs.toString(StandardCharsets.UTF_8);
  }
}
