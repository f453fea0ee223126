package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.watukuy.Cursors;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.Watukuy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The pagination shapes of the YAML poller, from a Java fetcher (docs/architecture.md, "Paging
 * shapes from Java"): the token strategy carries the next URL, or the offset, from page to page; a
 * listing that ends with no token starts over next cycle. Against a real HTTP server on 127.0.0.1
 * that caps the page size at 2 whatever is asked.
 */
class JavaPagingShapesTest {
  private static final int CAP = 2;

  final Fixture f = new Fixture();
  final Recorder handler = new Recorder();
  final List<String> seen = new CopyOnWriteArrayList<>();
  final List<String> ids = new CopyOnWriteArrayList<>(List.of("a", "b", "c", "d", "e"));
  HttpServer server;
  String base;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    // ?from=N: items N.. (at most CAP), a relative links.next while more follow, and the total.
    server.createContext(
        "/items",
        ex -> {
          String q = ex.getRequestURI().getQuery();
          seen.add(q);
          int from = Integer.parseInt(q.replaceAll("^(?:.*&)?from=(\\d+).*$", "$1"));
          List<String> all = List.copyOf(ids);
          int to = Math.min(all.size(), from + CAP);
          StringBuilder b = new StringBuilder("{\"items\":[");
          for (int i = from; i < to; i++)
            b.append(i == from ? "" : ",").append("{\"id\":\"" + all.get(i) + "\"}");
          b.append("],\"total\":").append(all.size()).append(",\"links\":{\"next\":");
          b.append(to < all.size() ? "\"/items?from=" + to + "&limit=100\"" : "null").append("}}");
          byte[] bytes = b.toString().getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().set("Content-Type", "application/json");
          ex.sendResponseHeaders(200, bytes.length);
          ex.getResponseBody().write(bytes);
          ex.close();
        });
    server.start();
    base = "http://127.0.0.1:" + server.getAddress().getPort() + "/items";
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private static List<JsonNode> items(JsonNode body) {
    List<JsonNode> out = new ArrayList<>();
    body.get("items").forEach(out::add);
    return out;
  }

  @Test
  void aNextUrlInTheBodyIsTheTokenAndTheListingStartsOverWhenItEnds() {
    Poller<JsonNode> p =
        Poller.builder("feed", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.token())
            .fetch(
                ctx -> {
                  String url = ctx.cursor() == null ? base + "?from=0&limit=100" : ctx.cursor();
                  JsonNode body = ctx.http().get(url).json();
                  JsonNode next = body.at("/links/next");
                  // Relative to the page it came with; no URL ends the listing (token null).
                  return Page.of(items(body))
                      .withCursor(
                          next.isTextual()
                              ? URI.create(url).resolve(next.textValue()).toString()
                              : null);
                })
            .schedule(Fixture.FIXED)
            .build();
    Watukuy w = f.engine("a").poller(p).build().on(p, handler);

    w.tick();
    f.clock.advance(Fixture.MIN);
    w.tick();

    assertThat(handler.changes())
        .containsExactly("a:created", "b:created", "c:created", "d:created", "e:created");
    assertThat(seen)
        .containsExactly(
            "from=0&limit=100",
            "from=2&limit=100",
            "from=4&limit=100",
            "from=0&limit=100",
            "from=2&limit=100",
            "from=4&limit=100");
  }

  @Test
  void anOffsetTokenAdvancesByTheItemsReturnedAndEndsAtTheTotal() {
    Poller<JsonNode> p =
        Poller.builder("feed", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.token())
            .fetch(
                ctx -> {
                  int offset = ctx.cursor() == null ? 0 : Integer.parseInt(ctx.cursor());
                  JsonNode body = ctx.http().get(base + "?from=" + offset + "&limit=100").json();
                  List<JsonNode> items = items(body);
                  int next = offset + items.size(); // not + limit: the server caps it
                  boolean more = !items.isEmpty() && next < body.get("total").asInt();
                  return Page.of(items).withCursor(more ? Integer.toString(next) : null);
                })
            .schedule(Fixture.FIXED)
            .build();
    Watukuy w = f.engine("a").poller(p).build().on(p, handler);

    w.tick();

    assertThat(handler.changes())
        .containsExactly("a:created", "b:created", "c:created", "d:created", "e:created");
    assertThat(seen).containsExactly("from=0&limit=100", "from=2&limit=100", "from=4&limit=100");
  }
}
