package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Listing requests with a body against a search endpoint on 127.0.0.1 (docs/config.md, "Request
 * bodies", "GraphQL", "Timestamp formats"): what goes over the wire for {@code body:}, {@code
 * form:} and PUT, the overlap value written with {@code cursor.format}, a failed POST asked again
 * as a GET would be, and GraphQL {@code errors} in a 200.
 */
class RequestBodiesTest {
  private static final String TOKEN = "vendor-t0ken-4242";

  /** One request as the server saw it. */
  record Seen(String method, String contentType, String body) {}

  @TempDir Path dir;
  private HttpServer server;
  private final List<Seen> seen = new CopyOnWriteArrayList<>();
  // The answer to the next request: status and body, from what was sent.
  private final AtomicReference<Function<Seen, Map.Entry<Integer, String>>> answer =
      new AtomicReference<>();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private void handle(HttpExchange ex) throws IOException {
    Seen s =
        new Seen(
            ex.getRequestMethod(),
            ex.getRequestHeaders().getFirst("Content-Type"),
            new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
    seen.add(s);
    Map.Entry<Integer, String> a = answer.get().apply(s);
    byte[] bytes = a.getValue().getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(a.getKey(), bytes.length);
    ex.getResponseBody().write(bytes);
    ex.close();
  }

  private CliRun run(String pollers) throws IOException {
    Path config = dir.resolve("watukuy.yaml");
    Files.writeString(
        config,
        "store: sqlite:watukuy.db\npollers:\n"
            + pollers.replace("URL", "http://127.0.0.1:" + server.getAddress().getPort()));
    return CliRun.withEnv(Map.of("VENDOR_TOKEN", TOKEN), "run", config.toString(), "--once");
  }

  private static List<String> changes(CliRun r) {
    return r.stdout()
        .lines()
        .map(l -> l.replaceAll(".*\"type\":\"(\\w+)\".*\"identity\":\"([^\"]+)\".*", "$1 $2"))
        .toList();
  }

  // Items in Paris local time, as some vendors write them; the filter is inclusive.
  private static final List<String> CONTACTS =
      List.of(
          "{\"id\":\"a\",\"updated\":\"2024-05-01 13:59:00\"}",
          "{\"id\":\"b\",\"updated\":\"2024-05-01 14:00:30\"}",
          "{\"id\":\"c\",\"updated\":\"2024-05-01 14:03:59\"}");

  private static final String SEARCH =
      """
        - name: contacts
          request:
            url: URL/search
            method: POST
            headers: { Authorization: "Bearer ${VENDOR_TOKEN}" }
            body:
              filters:
                - { field: updated, gte: "{{cursor.value}}" }
              limit: 100
          response: { items: /results }
          identity: /id
          version: /updated
          cursor:
            strategy: timestamp
            field: updated
            format: "yyyy-MM-dd HH:mm:ss"
            zone: Europe/Paris
            overlap: 2m
      """;

  /** The contacts at or after the body's {@code gte}, all of them without one. */
  private static Map.Entry<Integer, String> search(Seen s) {
    String gte = s.body().replaceAll("^.*\"gte\":\"([^\"]+)\".*$", "$1");
    boolean filtered = !gte.equals(s.body());
    List<String> hits =
        CONTACTS.stream()
            .filter(c -> !filtered || c.substring(c.indexOf("updated") + 10).compareTo(gte) >= 0)
            .toList();
    return Map.entry(200, "{\"results\":[" + String.join(",", hits) + "]}");
  }

  @Test
  void aKeysetCursorInTheBodyCarriesTheLastRecordsIdFromPageToPage() throws IOException {
    // Ids 1..5 in order, two after the body's `after` id (all from the start without one).
    answer.set(
        r -> {
          String after = r.body().replaceAll("^.*\"after\":\"(\\d+)\".*$", "$1");
          int from = after.equals(r.body()) ? 0 : Integer.parseInt(after);
          List<String> ids = new ArrayList<>();
          for (int id = from + 1; id <= Math.min(5, from + 2); id++) ids.add("{\"id\":" + id + "}");
          return Map.entry(
              200,
              "{\"results\":[" + String.join(",", ids) + "],\"has_more\":" + (from + 2 < 5) + "}");
        });

    CliRun run =
        run(
            """
              - name: contacts
                request:
                  url: URL/search
                  method: POST
                  body: { after: "{{last./id}}", limit: 2 }
                response: { items: /results, hasMore: /has_more }
                identity: /id
                cursor: { strategy: snapshotDiff }
            """);

    assertThat(run.exit()).as(run.stderr()).isZero();
    assertThat(changes(run))
        .containsExactly("created 1", "created 2", "created 3", "created 4", "created 5");
    // No `after` on the first page (no last record yet), then the last id of the page before.
    assertThat(seen)
        .extracting(Seen::body)
        .containsExactly(
            "{\"limit\":2}", "{\"after\":\"2\",\"limit\":2}", "{\"after\":\"4\",\"limit\":2}");
  }

  @Test
  void aSearchPostLeavesOutTheUnsetFilterThenSendsTheOverlapInTheApisOwnFormat()
      throws IOException {
    answer.set(RequestBodiesTest::search);

    CliRun first = run(SEARCH);
    assertThat(first.exit()).as(first.stderr()).isZero();
    assertThat(changes(first)).containsExactly("created a", "created b", "created c");
    CliRun second = run(SEARCH);
    assertThat(second.exit()).as(second.stderr()).isZero();
    assertThat(second.stdout()).isEmpty();

    // First cycle: no cursor, so no gte member. Second: the watermark 14:03:59 (Paris) minus the
    // 2m overlap, written back in the same pattern and zone.
    assertThat(seen)
        .containsExactly(
            new Seen(
                "POST",
                "application/json",
                "{\"filters\":[{\"field\":\"updated\"}],\"limit\":100}"),
            new Seen(
                "POST",
                "application/json",
                "{\"filters\":[{\"field\":\"updated\",\"gte\":\"2024-05-01 14:01:59\"}],\"limit\":100}"));
  }

  @Test
  void aFailedSearchPostIsAskedAgainByTheNextCycleLikeAGet() throws IOException {
    answer.set(s -> Map.entry(503, "{\"message\":\"try later\"}"));
    CliRun failed = run(SEARCH);
    assertThat(failed.exit()).isEqualTo(1);
    assertThat(failed.stdout()).isEmpty();
    assertThat(failed.stderr()).contains("503");

    answer.set(RequestBodiesTest::search);
    CliRun retried = run(SEARCH);
    assertThat(retried.exit()).as(retried.stderr()).isZero();
    assertThat(changes(retried)).containsExactly("created a", "created b", "created c");
    // Nothing was committed by the failure: the same request, body and all, went out again.
    assertThat(seen).hasSize(2);
    assertThat(seen.get(1)).isEqualTo(seen.get(0));
  }

  @Test
  void aFormIsUrlEncodedAndAVariableWithoutValueIsLeftOut() throws IOException {
    answer.set(s -> Map.entry(200, "{\"results\":[{\"id\":\"a\"}]}"));
    CliRun r =
        run(
            """
              - name: tickets
                request:
                  url: URL/tickets
                  method: POST
                  form: { q: "status:new & more", page: "{{page}}", after: "{{cursor.value}}" }
                response: { items: /results }
                identity: /id
                cursor: { strategy: snapshotDiff }
            """);
    assertThat(r.exit()).as(r.stderr()).isZero();
    assertThat(seen)
        .containsExactly(
            new Seen(
                "POST", "application/x-www-form-urlencoded", "q=status%3Anew+%26+more&page=1"));
  }

  @Test
  void aPutBodySendsThePageAsANumber() throws IOException {
    answer.set(
        s ->
            Map.entry(
                200,
                s.body().contains("\"page\":1,")
                    ? "{\"results\":[{\"id\":\"a\"},{\"id\":\"b\"}],\"more\":true}"
                    : "{\"results\":[{\"id\":\"c\"}],\"more\":false}"));
    CliRun r =
        run(
            """
              - name: exports
                request:
                  url: URL/exports
                  method: PUT
                  body: { page: "{{page}}", size: 2, label: "p{{page}}" }
                response: { items: /results, hasMore: /more }
                identity: /id
                cursor: { strategy: snapshotDiff }
            """);
    assertThat(r.exit()).as(r.stderr()).isZero();
    assertThat(changes(r)).containsExactly("created a", "created b", "created c");
    assertThat(seen)
        .containsExactly(
            new Seen("PUT", "application/json", "{\"page\":1,\"size\":2,\"label\":\"p1\"}"),
            new Seen("PUT", "application/json", "{\"page\":2,\"size\":2,\"label\":\"p2\"}"));
  }

  @Test
  void everyPutTakesABudgetTokenAsAGetDoes() throws IOException {
    answer.set(s -> Map.entry(200, "{\"results\":[{\"id\":\"a\"}],\"more\":true}"));
    Path config = dir.resolve("watukuy.yaml");
    Files.writeString(
        config,
        """
        store: sqlite:watukuy.db
        budgets: { vendor: { requests: 1, per: 1h } }
        pollers:
          - name: exports
            request:
              url: URL/exports
              method: PUT
              body: { page: "{{page}}" }
            response: { items: /results, hasMore: /more }
            identity: /id
            cursor: { strategy: page }
            budget: vendor
            maxWait: 0s
        """
            .replace("URL", "http://127.0.0.1:" + server.getAddress().getPort()));

    CliRun r = CliRun.of("run", config.toString(), "--once");

    // One token an hour: page 1 goes out, page 2 finds none and is not sent (docs/guarantees.md,
    // "G6. Rate budgets hold"; a budget timeout under --once is a skip).
    assertThat(r.exit()).as(r.stderr()).isZero();
    assertThat(seen).containsExactly(new Seen("PUT", "application/json", "{\"page\":1}"));
    assertThat(r.stderr()).contains("poller exports: budget vendor: no token within maxWait");
  }

  @Test
  void graphQlErrorsInA200AreAFetchErrorRedactedAndBounded() throws IOException {
    // A server that echoes the credential it was sent in a long message.
    String message = "token " + TOKEN + " is not allowed here " + "x".repeat(1000);
    answer.set(
        s ->
            Map.entry(
                200,
                "{\"errors\":[{\"message\":\""
                    + message
                    + "\"},{\"message\":\"second\"}],\"data\":null}"));
    CliRun r =
        run(
            """
              - name: orders
                request:
                  url: URL/graphql
                  headers: { Authorization: "Bearer ${VENDOR_TOKEN}" }
                  graphql:
                    query: "query($after: String) { orders(after: $after) { edges { node { id } } pageInfo { endCursor hasNextPage } } }"
                    variables: { after: "{{cursor.value}}", first: 50 }
                response: { items: /data/orders/edges, pageInfo: /data/orders/pageInfo }
                identity: /node/id
                cursor: { strategy: token }
            """);
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.stdout()).isEmpty();
    assertThat(r.stderr()).doesNotContain(TOKEN);
    String line = r.stderr().lines().filter(l -> l.contains("GraphQL")).findFirst().orElseThrow();
    String quoted = line.substring(line.indexOf('\'') + 1, line.lastIndexOf('\''));
    assertThat(quoted).startsWith("token [redacted] is not allowed here xxx").endsWith("…");
    assertThat(quoted.length()).isEqualTo(GraphQlPaging.MAX_MESSAGE + 1);
    assertThat(line).endsWith("' (and 1 more)");
    // The first request of a token poller without a token: the after variable is left out.
    assertThat(seen.get(0).body())
        .isEqualTo(
            "{\"query\":\"query($after: String) { orders(after: $after) { edges { node { id } }"
                + " pageInfo { endCursor hasNextPage } } }\",\"variables\":{\"first\":50}}");
    assertThat(seen.get(0).method()).isEqualTo("POST");
    assertThat(seen.get(0).contentType()).isEqualTo("application/json");
  }
}
