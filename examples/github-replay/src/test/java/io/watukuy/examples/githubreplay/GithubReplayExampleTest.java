package io.watukuy.examples.githubreplay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code examples/github-replay} as its README runs it: {@code replay-server.js} serves the five
 * issue pages recorded by octokit/fixtures with their real Link and ETag headers, and {@code
 * watukuy run watukuy.yaml --once} lists them with the snapshotDiff strategy.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class GithubReplayExampleTest {
  /** The recorded first request, as the YAML sends it. */
  private static final String PAGE_1 =
      "/repos/octokit-fixture-org/tmp-scenario-paginate-issues-20220719043836917-izyoe/issues?per_page=3";

  /** The recorded Link rel="next" targets of pages 2 to 5, on the replay's origin. */
  private static final String PAGE_N = "/repositories/515435940/issues?per_page=3&page=";

  /** The recorded ETag of pages 1 to 5 (github-issues-pages.json, rawHeaders). */
  private static final List<String> RECORDED_ETAGS =
      List.of(
          "\"33b993150c346057e2d21c5333d4bc506287037296cc0ec3f450bafe9b4bdc72\"",
          "\"d011a13e41ffbde571ff296a56727f7a2d0d347d0ca27dbfcbf00d1f7acfa89c\"",
          "\"db660243e5578a995a959ca2e3420785d4cb43099d14a90598e426333d998b35\"",
          "\"2ed8fbf41808d13f16e36c7be04b377aa30d456b17c1bf56a01612983ad8306d\"",
          "\"3c1720cd34c502e65ba6dbcd6a455537e98b9bb30b9730e0272b5658b2c1dadf\"");

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  @TempDir Path dir;
  private LocalServer server;
  private Path config;

  @BeforeEach
  void startReplay() {
    Path example = Peers.repositoryRoot().resolve("examples/github-replay");
    requireNode();
    int port = LocalServer.freePort();
    server =
        LocalServer.start(
            "replay",
            List.of(
                "node",
                example.resolve("replay-server.js").toString(),
                "--port",
                Integer.toString(port)),
            dir.resolve("server"),
            port,
            Duration.ofSeconds(20));
    config =
        WatukuyCli.config(
            example.resolve("watukuy.yaml"), dir, Map.of("127.0.0.1:3998", "127.0.0.1:" + port));
  }

  @AfterEach
  void stopReplay() {
    if (server != null) server.close();
  }

  @Test
  void theRecordedPagesAreCreatedInListingOrderAndTheirEtagsComeBackUnchanged() {
    WatukuyCli.Result first = run();
    assertThat(first.changes())
        .containsExactlyElementsOf(
            IntStream.iterate(13, n -> n >= 1, n -> n - 1).mapToObj(n -> "created " + n).toList());
    assertThat(first.events())
        .extracting(e -> e.at("/data/title").asText())
        .containsExactlyElementsOf(
            IntStream.iterate(13, n -> n >= 1, n -> n - 1)
                .mapToObj(n -> "Test issue " + n)
                .toList());
    // The recording's updated_at of #13 and #1, the version the YAML names.
    assertThat(first.events().get(0).get("version").asText()).isEqualTo("2022-07-19T04:39:16Z");
    assertThat(first.events().get(12).get("version").asText()).isEqualTo("2022-07-19T04:38:40Z");
    // Page 1 as configured, then the Link rel="next" URLs verbatim, none conditional yet.
    assertThat(requests())
        .containsExactly(
            "GET " + PAGE_1 + " - 200",
            "GET " + PAGE_N + "2 - 200",
            "GET " + PAGE_N + "3 - 200",
            "GET " + PAGE_N + "4 - 200",
            "GET " + PAGE_N + "5 - 200");

    int before = requests().size();
    assertThat(run().changes()).isEmpty();
    // A 304 on a five-page listing could not be trusted (docs/architecture.md, "304 Not
    // Modified"), so no page is asked conditionally: one plain GET per page, never two.
    List<String> expected = new ArrayList<>();
    for (int page = 1; page <= 5; page++) {
      expected.add("GET " + (page == 1 ? PAGE_1 : PAGE_N + page) + " - 200");
    }
    assertThat(requests().subList(before, requests().size())).containsExactlyElementsOf(expected);
  }

  @Test
  void theReplayServesTheRecordedEtagsAndLinks() throws Exception {
    for (int page = 1; page <= 5; page++) {
      HttpResponse<String> r = get(page == 1 ? PAGE_1 : PAGE_N + page, null);
      assertThat(r.headers().firstValue("ETag")).hasValue(RECORDED_ETAGS.get(page - 1));
      String link = r.headers().firstValue("Link").orElse("");
      if (page < 5) {
        assertThat(link).contains("<" + server.url() + PAGE_N + (page + 1) + ">; rel=\"next\"");
      } else {
        assertThat(link).doesNotContain("rel=\"next\"").contains("rel=\"prev\"");
      }
    }
  }

  @Test
  void onASinglePageListingTheEtagComesBackAndA304EndsTheCycle() throws Exception {
    // All thirteen issues on one page: the only kind of page a 304 may vouch for.
    config =
        WatukuyCli.config(config, dir.resolve("one-page"), Map.of("per_page: 3", "per_page: 100"));
    String page = PAGE_1.replace("per_page=3", "per_page=100");
    assertThat(run().changes()).hasSize(13);
    // The first cycle learns the listing is one page; the second sends the ETag it stored.
    int before = requests().size();
    assertThat(run().changes()).isEmpty();
    String etag = get(page, null).headers().firstValue("ETag").orElseThrow();
    assertThat(requests().subList(before, requests().size()))
        .startsWith("GET " + page + " " + etag + " 304");

    admin("PATCH", "/_replay/issues/2", "{\"title\":\"Closed as duplicate\"}", 200);
    before = requests().size();
    assertThat(run().changes()).containsExactly("updated 2");
    assertThat(requests().subList(before, requests().size()))
        .containsExactly("GET " + page + " " + etag + " 200");
  }

  @Test
  void aNewTitleIsOneUpdatedEventCarryingThePreviousTitle() throws Exception {
    assertThat(run().changes()).hasSize(13);

    JsonNode patched =
        admin("PATCH", "/_replay/issues/7", "{\"title\":\"Rate limit reached too early\"}", 200);
    String updatedAt = patched.get("updated_at").asText();
    assertThat(updatedAt).isNotEqualTo("2022-07-19T04:38:58Z");

    int before = requests().size();
    WatukuyCli.Result second = run();
    assertThat(second.changes()).containsExactly("updated 7");
    JsonNode event = second.events().get(0);
    assertThat(event.at("/data/title").asText()).isEqualTo("Rate limit reached too early");
    assertThat(event.at("/previous/title").asText()).isEqualTo("Test issue 7");
    assertThat(event.get("version").asText()).isEqualTo(updatedAt);
    // Five plain GETs: nothing conditional on a multi-page listing.
    assertThat(requests().subList(before, requests().size()))
        .hasSize(5)
        .allMatch(l -> l.endsWith(" - 200"));

    assertThat(run().changes()).isEmpty();
  }

  @Test
  void aDeletedIssueIsOneDeletedEventEvenWhenLaterIssuesMoveUpAPage() throws Exception {
    assertThat(run().changes()).hasSize(13);

    admin("DELETE", "/_replay/issues/1", null, 204);
    WatukuyCli.Result second = run();
    assertThat(second.changes()).containsExactly("deleted 1");
    assertThat(second.events().get(0).at("/data/title").asText()).isEqualTo("Test issue 1");

    // #4, #3 and #2 move up to page 3; page 4 ends the listing. Only #5 is gone.
    admin("DELETE", "/_replay/issues/5", null, 204);
    int before = requests().size();
    assertThat(run().changes()).containsExactly("deleted 5");
    assertThat(requests().subList(before, requests().size()))
        .noneMatch(line -> line.startsWith("GET " + PAGE_N + "5 "))
        .anyMatch(line -> line.startsWith("GET " + PAGE_N + "4 ") && line.endsWith(" 200"));

    assertThat(run().changes()).isEmpty();
  }

  private WatukuyCli.Result run() {
    WatukuyCli.Result r = WatukuyCli.run("run", config.toString(), "--once");
    if (r.exit() != 0) {
      fail(
          "watukuy run exited " + r.exit() + ":\n" + r.stderr() + "\nreplay log:\n" + server.log());
    }
    return r;
  }

  /** The replay's request lines ({@code METHOD URL IF-NONE-MATCH STATUS}), listing GETs only. */
  private List<String> requests() {
    return server.log().lines().filter(l -> l.startsWith("GET /r")).toList();
  }

  private JsonNode admin(String method, String path, String body, int status) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(server.url() + path)).timeout(Duration.ofSeconds(10));
    request.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    HttpResponse<String> response =
        HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode())
        .as(method + " " + path + ": " + response.body())
        .isEqualTo(status);
    return response.body().isEmpty() ? JSON.nullNode() : JSON.readTree(response.body());
  }

  private HttpResponse<String> get(String path, String ifNoneMatch) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(server.url() + path)).timeout(Duration.ofSeconds(10));
    if (ifNoneMatch != null) request.header("If-None-Match", ifNoneMatch);
    HttpResponse<String> response =
        HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as("GET " + path).isEqualTo(200);
    return response;
  }

  /** Fails with one clear line when Node.js is not installed, instead of a process error. */
  private static void requireNode() {
    try {
      Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
      String version =
          new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        fail("node --version did not answer within 20 s");
      }
      int major = Integer.parseInt(version.replaceFirst("^v(\\d+).*", "$1"));
      if (major < 18)
        fail("replay-server.js needs Node.js 18 or later; node --version says " + version);
    } catch (IOException e) {
      fail(
          "Node.js (18 or later) must be on the PATH to run examples/github-replay/replay-server.js: "
              + e.getMessage());
    } catch (NumberFormatException e) {
      fail("cannot read the Node.js version from node --version: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      fail("interrupted while checking node --version");
    }
  }
}
