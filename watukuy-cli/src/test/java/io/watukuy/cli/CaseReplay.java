package io.watukuy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.watukuy.PollerKey;
import io.watukuy.spi.PollerState;
import io.watukuy.store.sqlite.SqliteStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * Replays one scenario of {@code src/test/resources/cases/} (copied from public bug reports, each
 * with its {@code source}) against {@code watukuy run --once}: a local HTTP server answers each
 * step's requests in order, checks their query ({@code query} exact, {@code absentQuery} absent)
 * and records any request the step does not list. The YAML is the test's own, written to match the
 * scenario's {@code poller}.
 */
final class CaseReplay implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();

  final JsonNode scenario;
  private final HttpServer server;
  private final Path dir;
  private final Deque<JsonNode> expected = new ArrayDeque<>();
  private final List<String> problems = new CopyOnWriteArrayList<>();
  private @Nullable Path config;

  /** What one step did. */
  record Step(int exit, List<String> events, String stderr, List<String> problems) {}

  CaseReplay(String name, Path dir) throws IOException {
    try (InputStream in = CaseReplay.class.getResourceAsStream("/cases/" + name)) {
      if (in == null) throw new IllegalArgumentException("no test resource cases/" + name);
      this.scenario = JSON.readTree(in);
    }
    this.dir = dir;
    this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::answer);
    server.start();
  }

  /** Writes the config; {@code %d} in the YAML is the server's port. */
  Path config(String yaml) throws IOException {
    config =
        Files.writeString(
            dir.resolve("watukuy.yaml"), yaml.formatted(server.getAddress().getPort()));
    return config;
  }

  /** The config file's path, as the command line takes it. */
  String configFile() {
    return String.valueOf(config);
  }

  /** Runs step {@code index} of the scenario: one {@code run --once}. */
  Step step(int index) {
    JsonNode step = scenario.path("steps").get(index);
    expected.clear();
    problems.clear();
    step.path("requests").forEach(expected::add);
    CliRun out = CliRun.of("run", String.valueOf(config), "--once");
    List<String> events = new ArrayList<>();
    out.stdout()
        .lines()
        .forEach(
            l -> {
              try {
                JsonNode e = JSON.readTree(l);
                events.add(e.get("type").asText() + " " + e.get("identity").asText());
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
    List<String> left = new ArrayList<>(problems);
    for (JsonNode r : expected) left.add("expected but not sent: " + r.path("query"));
    return new Step(out.exit(), events, out.stderr(), left);
  }

  /** The stored live cursor of {@code poller}'s unpartitioned key, as JSON, or null. */
  @Nullable JsonNode cursor(String poller) throws IOException {
    try (SqliteStore store = SqliteStore.open(dir.resolve("watukuy.db"))) {
      String text =
          store
              .loadState(PollerKey.of(poller))
              .map(PollerState::cursors)
              .map(c -> c.get("live"))
              .orElse(null);
      return text == null ? null : JSON.readTree(text);
    }
  }

  private void answer(HttpExchange ex) throws IOException {
    Map<String, String> query = query(ex.getRequestURI().getRawQuery());
    JsonNode next = expected.poll();
    byte[] body;
    int status;
    if (next == null) {
      problems.add("not listed in the step but sent: " + query);
      status = 500;
      body = "{}".getBytes(StandardCharsets.UTF_8);
    } else {
      Map<String, String> want = new LinkedHashMap<>();
      next.path("query")
          .fields()
          .forEachRemaining(f -> want.put(f.getKey(), f.getValue().asText()));
      Map<String, String> sent = new LinkedHashMap<>(query);
      next.path("absentQuery")
          .forEach(
              a -> {
                if (sent.containsKey(a.asText()))
                  problems.add("sent " + a.asText() + " in " + query);
                sent.remove(a.asText());
              });
      if (!sent.equals(want)) problems.add("expected query " + want + " but got " + query);
      status = 200;
      body = JSON.writeValueAsBytes(next.path("response"));
    }
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(status, body.length);
    ex.getResponseBody().write(body);
    ex.close();
  }

  private static Map<String, String> query(@Nullable String raw) {
    Map<String, String> out = new LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) return out;
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      out.put(
          URLDecoder.decode(name, StandardCharsets.UTF_8),
          URLDecoder.decode(value, StandardCharsets.UTF_8));
    }
    return out;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
