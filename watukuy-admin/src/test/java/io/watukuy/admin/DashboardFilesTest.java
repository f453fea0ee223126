package io.watukuy.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cursors;
import io.watukuy.Poller;
import io.watukuy.Watukuy;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.FakeApi;
import io.watukuy.testing.VirtualClock;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's files as the admin server serves them, without a browser (DashboardBrowserTest
 * drives them in one): what Content-Security-Policy {@code default-src 'self'} allows, nothing from
 * another origin, data only ever as text, and the files readable where the API needs a bearer
 * token, so the page can ask for it.
 */
class DashboardFilesTest {
  static final String TOKEN = "0123456789abcdef0123456789abcdef";

  @Test
  void theFilesNeedNoTokenButTheApiDoes() throws Exception {
    VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z");
    FakeApi api = new FakeApi(clock);
    Poller<JsonNode> orders =
        Poller.builder("orders", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
            .fetch(api.timestampFetcher(10))
            .build();
    try (Watukuy engine =
            Watukuy.builder().store(new MemoryStore()).time(clock).poller(orders).build();
        AdminServer admin = AdminServer.builder(engine).bind("127.0.0.1", 0).token(TOKEN).build()) {
      admin.start();
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      String base = "http://127.0.0.1:" + admin.port();
      for (String[] file :
          new String[][] {
            {"/", "text/html; charset=utf-8"},
            {"/dashboard.js", "text/javascript; charset=utf-8"},
            {"/dashboard.css", "text/css; charset=utf-8"},
            {"/favicon.svg", "image/svg+xml"}
          }) {
        HttpResponse<String> r = get(http, base + file[0]);
        assertThat(r.statusCode()).as(file[0]).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).as(file[0]).hasValue(file[1]);
      }
      assertThat(get(http, base + "/admin/pollers").statusCode()).isEqualTo(401);
      assertThat(get(http, base + "/admin/parked").statusCode()).isEqualTo(401);
      assertThat(get(http, base + "/admin/effects").statusCode()).isEqualTo(401);
    }
  }

  @Test
  void thePageRunsUnderDefaultSrcSelf() throws IOException {
    String html = file("index.html");
    // every script and style is a file of the same origin: no inline code, no style attribute,
    // no event handler attribute, which default-src 'self' would refuse
    assertThat(html).doesNotContainPattern("<script(?![^>]*\\bsrc=)[^>]*>");
    assertThat(html).doesNotContainPattern("<style\\b");
    assertThat(html).doesNotContainPattern("\\sstyle=");
    assertThat(html).doesNotContainPattern("\\son[a-z]+=");
    assertThat(html).contains("<script src=\"dashboard.js\" defer>");
    assertThat(html).contains("<link rel=\"stylesheet\" href=\"dashboard.css\">");
  }

  @Test
  void nothingComesFromAnotherOrigin() throws IOException {
    Pattern elsewhere =
        Pattern.compile("(https?:)?//[a-z0-9.-]+\\.[a-z]{2,}", Pattern.CASE_INSENSITIVE);
    for (String name : new String[] {"index.html", "dashboard.js", "dashboard.css"}) {
      String text = file(name);
      assertThat(elsewhere.matcher(text).results().map(m -> m.group()).toList()).as(name).isEmpty();
      assertThat(text).as(name).doesNotContain("@import").doesNotContain("@font-face");
    }
    // the SVG's namespace is a name, not a request
    assertThat(file("favicon.svg")).doesNotContain("href=");
  }

  @Test
  void dataReachesThePageAsTextOnly() throws IOException {
    String js = file("dashboard.js");
    for (String sink :
        new String[] {"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("}) {
      assertThat(js).as(sink).doesNotContain(sink);
    }
    assertThat(js).contains("textContent");
    // the token stays in memory: nothing is written to the browser's storage
    assertThat(js).doesNotContain("localStorage").doesNotContain("sessionStorage");
    assertThat(js).doesNotContain("document.cookie");
  }

  @Test
  void theEffectsTableSitsBesidePollersHiddenUntilTheServerServesEffects() throws IOException {
    String html = file("index.html");
    // hidden in the markup: a server without effects answers 404 and the section stays hidden
    assertThat(html)
        .contains("<section id=\"effects-section\" aria-labelledby=\"effects-title\" hidden>");
    assertThat(html.indexOf("id=\"keys\"")).isLessThan(html.indexOf("id=\"effects\""));
    for (String column :
        new String[] {
          "Effect",
          "State",
          "Position",
          "Lag",
          "Wedged lanes",
          "Last error",
          "Lane",
          "Attempt",
          "Retry in"
        }) assertThat(html).as(column).contains("<th scope=\"col\">" + column + "</th>");
    String js = file("dashboard.js");
    // the listing, then one read per effect for its stuck lanes; a skip per stuck lane, confirmed
    assertThat(js).contains("const EFFECTS = 'admin/effects';");
    assertThat(js).contains("if (e.status === 404) return null;");
    assertThat(js).contains("`${EFFECTS}/${encodeURIComponent(effect)}/skip/${position}");
    assertThat(js).contains("button('Skip', `Skip ${where}`");
    assertThat(js).contains("confirmed(`Skip ${where}");
    // and a retry now beside it, unconfirmed: it runs the arm as its backoff would, only sooner
    assertThat(js).contains("`${EFFECTS}/${encodeURIComponent(effect)}/retry/${position}");
    assertThat(js).contains("button('Retry now', `Retry ${where} now`");
  }

  private static HttpResponse<String> get(HttpClient http, String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String file(String name) throws IOException {
    try (InputStream in = StaticFiles.class.getResourceAsStream("/" + StaticFiles.FOLDER + name)) {
      assertThat(in).as(name).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
