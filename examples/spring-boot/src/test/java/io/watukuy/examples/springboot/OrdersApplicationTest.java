package io.watukuy.examples.springboot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.watukuy.testing.ReadsWallClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The example application, booted whole on a random port against the local PostgreSQL (its own
 * table prefix, dropped afterwards) and a vendor on 127.0.0.1: the orders reach the handler, a
 * changed order arrives as an update, and {@code /actuator/health} and {@code /actuator/watukuy}
 * answer over HTTP: ids as a JSON array, and refusals whose {@code error} names the unknown poller,
 * action or body field. The health readiness group leaves watukuy out.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"orders.every=1s", "management.endpoint.health.probes.enabled=true"})
@ReadsWallClock("a whole application: the daemon polls on the system clock")
class OrdersApplicationTest {
  static final String DB = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
  static final String PREFIX =
      "sbex_" + HexFormat.of().toHexDigits(new SplittableRandom().nextInt()) + "_";
  static final AtomicReference<String> orders =
      new AtomicReference<>(
          "[{\"id\":\"1001\",\"status\":\"paid\"},{\"id\":\"1002\",\"status\":\"new\"}]");
  static final HttpServer vendor = vendor();
  static final ObjectMapper json = new ObjectMapper();
  static final HttpClient client = HttpClient.newHttpClient();

  @Autowired OrderBook book;

  @Value("${local.server.port}")
  int port;

  static HttpServer vendor() {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      server.createContext(
          "/orders",
          ex -> {
            byte[] body = orders.get().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
          });
      server.start();
      return server;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", () -> DB);
    registry.add(
        "orders.url", () -> "http://127.0.0.1:" + vendor.getAddress().getPort() + "/orders");
    registry.add("watukuy.store.table-prefix", () -> PREFIX);
  }

  @AfterAll
  static void cleanUp() throws Exception {
    vendor.stop(0);
    try (Connection c = DriverManager.getConnection(DB);
        Statement s = c.createStatement()) {
      List<String> tables = new ArrayList<>();
      try (ResultSet rs =
          c.getMetaData()
              .getTables(
                  null, "public", PREFIX.replace("_", "\\_") + "%", new String[] {"TABLE"})) {
        while (rs.next()) tables.add(rs.getString("TABLE_NAME"));
      }
      for (String t : tables) s.execute("DROP TABLE IF EXISTS public.\"" + t + "\" CASCADE");
    }
  }

  @Test
  void ordersReachTheHandlerAndTheActuatorEndpointsAnswer() throws Exception {
    awaitBook(Map.of("1001", "paid", "1002", "new"));
    orders.set("[{\"id\":\"1001\",\"status\":\"shipped\"}]");
    awaitBook(Map.of("1001", "shipped"));

    JsonNode health = get("/actuator/health", 200);
    assertThat(health.at("/components/watukuy/status").asText()).isEqualTo("UP");
    assertThat(health.at("/components/watukuy/details/keys").asInt()).isEqualTo(1);
    JsonNode readiness = get("/actuator/health/readiness", 200);
    assertThat(readiness.path("components").has("watukuy")).isFalse();

    JsonNode inspection = get("/actuator/watukuy", 200);
    assertThat(inspection.at("/pollers/0/poller").asText()).isEqualTo("orders");
    assertThat(inspection.at("/pollers/0/health/healthy").asBoolean()).isTrue();
    JsonNode poller = get("/actuator/watukuy/orders", 200);
    assertThat(poller.get("parked")).isEmpty();

    // Refusals name what was wrong; a misspelt field pauses nothing.
    assertThat(get("/actuator/watukuy/nope", 404).get("error").asText())
        .isEqualTo("unknown poller 'nope'; the pollers: orders");
    assertThat(post("/actuator/watukuy/orders/pause", "{\"partiton\":\"eu\"}", 400))
        .isEqualTo("unknown field 'partiton'; the fields are partition and ids");
    assertThat(post("/actuator/watukuy/orders/jump", "{}", 400))
        .isEqualTo(
            "unknown action 'jump' on poller 'orders': pause, resume, trigger, retry, discard");
    String idsShape =
        "ids must be an array of strings such as [\"12\"] or one string such as \"12\"";
    assertThat(post("/actuator/watukuy/orders/retry", "{\"ids\":[1]}", 400))
        .isEqualTo(idsShape + ", but was [1]");
    assertThat(post("/actuator/watukuy/orders/retry", "{\"ids\":7}", 400))
        .isEqualTo(idsShape + ", but was 7");
    // A JSON null is not an absent field: it never means "all".
    assertThat(post("/actuator/watukuy/orders/discard", "{\"ids\":null}", 400))
        .isEqualTo("ids is null; leave the field out to mean every parked event, or give a value");
    assertThat(post("/actuator/watukuy/orders/pause", "{\"partition\":null}", 400))
        .isEqualTo(
            "partition is null; leave the field out to mean every partition, or give a value");
    assertThat(post("/actuator/watukuy/orders/pause", "{\"ids\":[\"1\"]}", 400))
        .isEqualTo(
            "pause on poller 'orders' takes no ids; ids choose parked events, for retry and discard");
    // Fields come from the JSON body only, with or without one.
    assertThat(post("/actuator/watukuy/orders/retry?ids=6", "{}", 400))
        .isEqualTo("query parameter 'ids' is not taken; send partition and ids in the JSON body");
    assertThat(post("/actuator/watukuy/orders/pause?partition=eu", "", 400))
        .isEqualTo(
            "query parameter 'partition' is not taken; send partition and ids in the JSON body");
    assertThat(get("/actuator/watukuy", 200).at("/pollers/0/paused").isNull()).isTrue();

    // ids as a JSON array (nothing is parked here, so nothing matches)
    HttpResponse<String> discarded =
        send("/actuator/watukuy/orders/discard", "{\"ids\":[\"1\",\"2\"]}");
    assertThat(discarded.statusCode()).as(discarded.body()).isEqualTo(200);
    assertThat(json.readTree(discarded.body()).get("count").asInt()).isZero();

    HttpResponse<String> paused = send("/actuator/watukuy/orders/pause", "{}");
    assertThat(paused.statusCode()).isEqualTo(200);
    assertThat(json.readTree(paused.body()).get("action").asText()).isEqualTo("pause");
    assertThat(get("/actuator/watukuy", 200).at("/pollers/0/paused").isNull()).isFalse();
  }

  private HttpResponse<String> send(String path, String body) throws Exception {
    return client.send(
        HttpRequest.newBuilder(uri(path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The {@code error} of a refused POST. */
  private String post(String path, String body, int status) throws Exception {
    HttpResponse<String> r = send(path, body);
    assertThat(r.statusCode()).as(path + " " + body + ": " + r.body()).isEqualTo(status);
    return json.readTree(r.body()).get("error").asText();
  }

  private void awaitBook(Map<String, String> expected) throws InterruptedException {
    // At most 20 s: the poller runs every second.
    for (int i = 0; i < 400 && !book.statuses().equals(expected); i++) Thread.sleep(50);
    assertThat(book.statuses()).isEqualTo(expected);
  }

  private JsonNode get(String path, int status) throws Exception {
    HttpResponse<String> r =
        client.send(
            HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(status);
    return json.readTree(r.body());
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }
}
