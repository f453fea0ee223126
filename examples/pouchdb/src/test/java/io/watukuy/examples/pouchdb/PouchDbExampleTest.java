package io.watukuy.examples.pouchdb;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.watukuy.examples.support.LocalServer;
import io.watukuy.examples.support.Peers;
import io.watukuy.examples.support.WatukuyCli;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed {@code examples/pouchdb/watukuy.yaml}, run with {@code watukuy run --once} against
 * a real pouchdb-server 4.2.0 (in memory, on a free loopback port). Sequence numbers in comments
 * are what CouchDB's protocol assigns: one per write, and {@code _changes} lists each document
 * once, at the sequence of its latest write.
 */
@Timeout(180)
class PouchDbExampleTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(10);
  // pouchdb-server's access log line: "... 127.0.0.1 - - GET
  // /orders/_changes?since=2&limit=2&include_docs=true 200"
  private static final Pattern CHANGES_REQUEST =
      Pattern.compile("GET /orders/_changes(\\S*) (\\d{3})");
  private static final Pattern SINCE = Pattern.compile("[?&]since=([^&]*)");

  @TempDir Path dir;
  private LocalServer server;
  private Path config;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeEach
  void start() {
    int port = LocalServer.freePort();
    String exe = Peers.bin("pouchdb-server").toString();
    // Its working folder receives config.json and log.txt (the access log read below).
    server =
        LocalServer.start(
            "pouchdb-server",
            List.of(
                exe,
                "--host",
                "127.0.0.1",
                "--port",
                Integer.toString(port),
                "--in-memory",
                "--no-color"),
            dir.resolve("pouchdb"),
            port,
            Duration.ofSeconds(30));
    config =
        WatukuyCli.config(
            Peers.repositoryRoot().resolve("examples/pouchdb/watukuy.yaml"),
            dir.resolve("watukuy"),
            Map.of("127.0.0.1:5985", "127.0.0.1:" + port));
  }

  @AfterEach
  void stop() {
    if (server != null) server.close();
  }

  @Test
  void pagesTheFeedFromTheStartThenEmitsEachLaterChangeOnceInSeqOrder() throws Exception {
    send("PUT", "/orders", null);
    String[][] seed = {
      {"o1", "acme", "new"},
      {"o2", "globex", "paid"},
      {"o3", "initech", "new"},
      {"o4", "hooli", "new"},
      {"o5", "umbrella", "paid"}
    };
    Map<String, String> rev = new HashMap<>();
    for (String[] s : seed) rev.put(s[0], put(s[0], null, s[1], s[2]));

    // Seqs 1..5, two per page: pages end at last_seq 2, 4, 5, then an empty page echoes 5.
    WatukuyCli.Result first = run();
    assertThat(first.changes())
        .containsExactly("created o1", "created o2", "created o3", "created o4", "created o5");
    for (int i = 0; i < seed.length; i++) {
      JsonNode e = first.events().get(i);
      assertThat(e.get("source").asText()).isEqualTo("orders");
      assertThat(e.get("version").asText()).isEqualTo(rev.get(seed[i][0]));
      // The event's data is the whole change row; the document is under data.doc.
      assertThat(e.at("/data/id").asText()).isEqualTo(seed[i][0]);
      assertThat(e.at("/data/seq").asInt()).isEqualTo(i + 1);
      assertThat(e.at("/data/doc/_id").asText()).isEqualTo(seed[i][0]);
      assertThat(e.at("/data/doc/_rev").asText()).isEqualTo(rev.get(seed[i][0]));
      assertThat(e.at("/data/doc/customer").asText()).isEqualTo(seed[i][1]);
      assertThat(e.at("/data/doc/status").asText()).isEqualTo(seed[i][2]);
      assertThat(e.get("previous").isNull()).isTrue();
    }
    awaitSinceValues("", "2", "4", "5");
    // The last page was empty and carried hasMore false (nonEmpty): its token is kept, not reset.
    assertThat(storedToken()).isEqualTo("5");

    WatukuyCli.Result second = run();
    assertThat(second.changes()).isEmpty();
    awaitSinceValues("", "2", "4", "5", "5");
    assertThat(storedToken()).isEqualTo("5");

    String o2v2 = put("o2", rev.get("o2"), "globex", "shipped"); // seq 6
    send("DELETE", "/orders/o4?rev=" + rev.get("o4"), null); // seq 7
    String o6 = put("o6", null, "stark", "new"); // seq 8
    WatukuyCli.Result third = run();
    assertThat(third.changes()).containsExactly("updated o2", "deleted o4", "created o6");
    JsonNode updated = third.events().get(0);
    assertThat(updated.get("version").asText()).isEqualTo(o2v2);
    assertThat(updated.at("/data/doc/status").asText()).isEqualTo("shipped");
    assertThat(updated.at("/previous/doc/status").asText()).isEqualTo("paid");
    assertThat(updated.at("/previous/doc/_rev").asText()).isEqualTo(rev.get("o2"));
    JsonNode deleted = third.events().get(1);
    assertThat(deleted.get("version").asText()).isEqualTo(rev.get("o4"));
    assertThat(deleted.at("/data/doc/customer").asText()).isEqualTo("hooli");
    JsonNode created = third.events().get(2);
    assertThat(created.get("version").asText()).isEqualTo(o6);
    assertThat(created.at("/data/doc/customer").asText()).isEqualTo("stark");
    assertThat(created.at("/data/seq").asInt()).isEqualTo(8);
    awaitSinceValues("", "2", "4", "5", "5", "5", "7", "8");
    assertThat(storedToken()).isEqualTo("8");

    WatukuyCli.Result fourth = run();
    assertThat(fourth.changes()).isEmpty();
    awaitSinceValues("", "2", "4", "5", "5", "5", "7", "8", "8");
    assertThat(storedToken()).isEqualTo("8");

    // From the start again: the feed now lists o1@1 o3@3 | o5@5 o2@6 | o4@7 (deleted) o6@8 | empty.
    // Every listed rev is the stored version and o4 is no longer stored: no event at all.
    WatukuyCli.Result reset =
        WatukuyCli.run("reset-cursor", config.toString(), "orders", "--initial");
    assertThat(reset.exit()).as("reset-cursor; stderr: %s", reset.stderr()).isZero();
    assertThat(run().changes()).isEmpty();
    awaitSinceValues("", "2", "4", "5", "5", "5", "7", "8", "8", "", "3", "6", "8");
    assertThat(storedToken()).isEqualTo("8");
  }

  @Test
  void aDeletedEventCarriesTheIdentityAndTheLastLiveDocument() throws Exception {
    send("PUT", "/orders", null);
    String rev1 = put("o1", null, "acme", "new");
    String rev2 = put("o1", rev1, "acme", "paid");
    assertThat(run().changes()).containsExactly("created o1");

    send("DELETE", "/orders/o1?rev=" + rev2, null);
    WatukuyCli.Result after = run();
    assertThat(after.changes()).containsExactly("deleted o1");
    JsonNode e = after.events().get(0);
    // The feed's tombstone doc is only {_id, _rev, _deleted}; retain: payload supplies the rest.
    assertThat(e.get("identity").asText()).isEqualTo("o1");
    assertThat(e.get("version").asText()).isEqualTo(rev2);
    assertThat(e.at("/data/doc/_rev").asText()).isEqualTo(rev2);
    assertThat(e.at("/data/doc/customer").asText()).isEqualTo("acme");
    assertThat(e.at("/data/doc/status").asText()).isEqualTo("paid");
    assertThat(e.at("/data/deleted").isMissingNode()).isTrue();
    assertThat(e.get("previous")).isEqualTo(e.get("data"));
    // A deleted event's id uses the last stored version (docs/architecture.md, "Ids, the outbox
    // key").
    assertThat(e.get("id").asText())
        .isEqualTo(sha256("watukuy|v1|orders||o1|" + rev2 + "|1|deleted"));

    assertThat(run().changes()).isEmpty();
  }

  @Test
  void aDocumentCreatedAndDeletedBetweenRunsEmitsNothing() throws Exception {
    send("PUT", "/orders", null);
    put("o1", null, "acme", "new"); // seq 1
    assertThat(run().changes()).containsExactly("created o1");

    String o2 = put("o2", null, "globex", "new"); // seq 2
    send("DELETE", "/orders/o2?rev=" + o2, null); // seq 3: o2 is listed here only
    String o3v1 = put("o3", null, "initech", "new"); // seq 4
    String o3v2 = put("o3", o3v1, "initech", "paid"); // seq 5: o3 is listed here only
    WatukuyCli.Result after = run();
    // A tombstone for an identity never stored does nothing, but still moves the cursor
    // (docs/architecture.md, "Tombstones"). A document created and updated between runs is one
    // created event.
    assertThat(after.changes()).containsExactly("created o3");
    assertThat(after.events().get(0).get("version").asText()).isEqualTo(o3v2);
    assertThat(after.events().get(0).at("/data/doc/status").asText()).isEqualTo("paid");
    assertThat(storedToken()).isEqualTo("5");
    assertThat(inspect().at("/pollers/0/items").asInt()).isEqualTo(2); // o1 and o3

    assertThat(run().changes()).isEmpty();
  }

  private WatukuyCli.Result run() {
    WatukuyCli.Result r = WatukuyCli.run("run", config.toString(), "--once");
    assertThat(r.exit())
        .as("exit of run --once; stderr:%n%s%nserver:%n%s", r.stderr(), server.log())
        .isZero();
    return r;
  }

  private JsonNode inspect() throws IOException {
    WatukuyCli.Result r = WatukuyCli.run("inspect", config.toString(), "--json");
    assertThat(r.exit()).as("inspect; stderr: %s", r.stderr()).isZero();
    return JSON.readTree(r.stdout());
  }

  /** The token strategy's live cursor as stored: the API's last_seq, as text. */
  private String storedToken() throws IOException {
    return inspect().at("/pollers/0/cursors/live").asText();
  }

  /**
   * Waits (bounded) until the {@code since} values of the 200 answers to {@code _changes} in the
   * server's access log are {@code expected} ({@code ""}: no {@code since}). A 304 answers a
   * conditional repeat of an unchanged last page; the engine then asks again without validators.
   */
  private void awaitSinceValues(String... expected) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    List<String> seen = sinceValues();
    while (!seen.equals(List.of(expected)) && System.nanoTime() < deadline) {
      Thread.sleep(50);
      seen = sinceValues();
    }
    assertThat(seen).as("since= of each _changes request answered 200").containsExactly(expected);
  }

  private List<String> sinceValues() throws IOException {
    Path log = dir.resolve("pouchdb/log.txt");
    List<String> out = new ArrayList<>();
    if (!Files.exists(log)) return out;
    for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
      Matcher m = CHANGES_REQUEST.matcher(line);
      if (!m.find() || !m.group(2).equals("200")) continue;
      Matcher s = SINCE.matcher(m.group(1));
      out.add(s.find() ? s.group(1) : "");
    }
    return out;
  }

  /** PUTs order {@code id} (with {@code rev} to update it) and returns its new revision. */
  private String put(String id, String rev, String customer, String status) throws Exception {
    var doc = JSON.createObjectNode().put("customer", customer).put("status", status);
    if (rev != null) doc.put("_rev", rev);
    return send("PUT", "/orders/" + id, doc.toString()).get("rev").asText();
  }

  private JsonNode send(String method, String path, String body) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(server.url() + path))
            .timeout(Duration.ofSeconds(10))
            .header("Accept", "application/json");
    if (body != null) b.header("Content-Type", "application/json");
    HttpRequest request =
        b.method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .build();
    HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as("%s %s: %s", method, path, r.body()).isBetween(200, 299);
    return JSON.readTree(r.body());
  }

  private static String sha256(String text) throws Exception {
    byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().formatHex(d);
  }
}
