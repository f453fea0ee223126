package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code budgets:} in YAML (G6): a top-level map of token buckets, {@code budget}, {@code weight}
 * and {@code maxWait} per poller; a budget timeout under {@code --once} is a skip (exit 0), and the
 * config errors name file, line, poller and key.
 */
class BudgetsTest {
  @TempDir Path dir;
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private HttpServer server;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/items", this::list);
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  /** Three pages of one item each: {@code ?page=N}. */
  private void list(HttpExchange ex) throws IOException {
    int page = Integer.parseInt(ex.getRequestURI().getQuery().replace("page=", ""));
    requests.add(ex.getRequestURI().getPath().substring(1) + "?page=" + page);
    String body = "{\"data\":[{\"id\":" + page + "}],\"has_more\":" + (page < 3) + "}";
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(200, bytes.length);
    ex.getResponseBody().write(bytes);
    ex.close();
  }

  private String config(String budgets, String pollerExtra) {
    return """
        store: memory
        %s
        pollers:
          - name: items
            request:
              url: http://127.0.0.1:%d/items
              query: { page: "{{page}}" }
            response: { items: /data, hasMore: /has_more }
            identity: /id
            cursor: { strategy: snapshotDiff }
        %s
        """
        .formatted(budgets, server.getAddress().getPort(), pollerExtra);
  }

  private record Result(int code, String out, String err) {}

  private Result run(String yaml, String... args) throws IOException {
    Path file = dir.resolve("watukuy.yaml");
    Files.writeString(file, yaml);
    // "validate" checks the file; anything else is passed to run.
    String[] argv =
        args.length == 1 && args[0].equals("validate")
            ? new String[] {"validate", file.toString()}
            : java.util.stream.Stream.concat(
                    java.util.stream.Stream.of("run", file.toString()),
                    java.util.Arrays.stream(args))
                .toArray(String[]::new);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            argv,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.<String, String>of()::get);
    return new Result(
        code,
        out.toString(StandardCharsets.UTF_8),
        err.toString(StandardCharsets.UTF_8).replace(file.toString(), "watukuy.yaml"));
  }

  @Test
  void aBudgetTimeoutUnderOnceIsASkipThatExitsZero() throws IOException {
    // Two tokens per hour and no waiting: pages 1 and 2 go out, page 3 is deferred.
    Result r =
        run(
            config(
                "budgets: { erp: { requests: 2, per: 1h } }", "    budget: erp\n    maxWait: 0s"),
            "--once");

    assertThat(requests).containsExactly("items?page=1", "items?page=2");
    assertThat(r.code()).isZero();
    assertThat(r.out().lines())
        .hasSize(2)
        .allSatisfy(line -> assertThat(line).contains("\"type\":\"created\""));
    assertThat(r.err())
        .matches(
            "watukuy: poller items: budget erp: no token within maxWait 0 ms \\(waited \\d+ ms\\);"
                + " the request was not sent and the cycle is deferred\n");
  }

  @Test
  void aRedisBudgetStoreSharesTheBucketsBetweenRuns() throws Exception {
    String prefix = "watukuy-test:cli-budget:" + Long.toHexString(System.nanoTime()) + ":";
    String yaml =
        config(
            "budgets: { erp: { requests: 2, per: 1h } }\nbudgetStore: { uri: \"redis://127.0.0.1:6379/0\","
                + " prefix: \""
                + prefix
                + "\" }",
            "    budget: erp\n    maxWait: 0s");
    try {
      Result first = run(yaml, "--once");
      assertThat(first.code()).as(first.err()).isZero();
      assertThat(requests).containsExactly("items?page=1", "items?page=2");
      // A new process with an in-memory budget would start full again; the shared bucket is empty.
      Result second = run(yaml, "--once");
      assertThat(second.code()).as(second.err()).isZero();
      assertThat(requests).hasSize(2);
      assertThat(second.err()).contains("budget erp: no token within maxWait");
    } finally {
      io.lettuce.core.RedisClient client =
          io.lettuce.core.RedisClient.create("redis://127.0.0.1:6379/0");
      try (var c = client.connect()) {
        var keys = c.sync().keys(prefix + "*");
        if (!keys.isEmpty()) c.sync().del(keys.toArray(new String[0]));
      } finally {
        client.shutdown();
      }
    }
  }

  @Test
  void aBudgetStoreMustBeRedisAndHaveBudgetsToShare() throws IOException {
    Result r =
        run(
            config("budgets: { erp: { requests: 2, per: 1h } }\nbudgetStore: sqlite:b.db", ""),
            "validate");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "watukuy: watukuy.yaml:3: budgetStore: 'sqlite:b.db': budgets are shared through"
                + " Redis only (redis://host:port/db); without budgetStore they hold for this process\n");
    r = run(config("budgetStore: redis://127.0.0.1:6379/0", ""), "validate");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "watukuy: watukuy.yaml:2: budgetStore: there are no budgets to share (budgets: is missing)\n");
  }

  @Test
  void aBurstLetsEveryPageThrough() throws IOException {
    Result r =
        run(
            config(
                "budgets: { erp: { requests: 1, per: 1h, burst: 3 } }",
                "    budget: erp\n    weight: 2\n    maxWait: 0s"),
            "--once");

    assertThat(r.code()).isZero();
    assertThat(r.err()).isEmpty();
    assertThat(requests).containsExactly("items?page=1", "items?page=2", "items?page=3");
  }

  @Test
  void aValidBudgetConfigPassesValidation() throws IOException {
    Result r =
        run(
            config(
                "budgets:\n  erp: { requests: 100, per: 1m, burst: 20 }\n  crm: { requests: 5, per: 1s }",
                "    budget: crm\n    weight: 3\n    maxWait: 30s"),
            "validate");
    assertThat(r.err()).isEmpty();
    assertThat(r.code()).isZero();
  }

  @Test
  void aPollerNamingAnUndeclaredBudgetIsAConfigError() throws IOException {
    Result r =
        run(config("budgets: { erp: { requests: 2, per: 1h } }", "    budget: crm"), "validate");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "watukuy: watukuy.yaml:11: poller items: budget: 'crm' is not declared under budgets (declared: erp)\n");

    r = run(config("", "    budget: erp"), "validate");
    assertThat(r.err())
        .isEqualTo(
            "watukuy: watukuy.yaml:11: poller items: budget: 'erp' is not declared under"
                + " budgets (the file has no budgets: section)\n");
  }

  @Test
  void weightOrMaxWaitWithoutABudgetIsAConfigError() throws IOException {
    Result r = run(config("", "    weight: 2"), "validate");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "watukuy: watukuy.yaml:11: poller items: weight: needs budget: (it orders the requests waiting for a budget)\n");
    r = run(config("", "    maxWait: 10s"), "validate");
    assertThat(r.err())
        .isEqualTo(
            "watukuy: watukuy.yaml:11: poller items: maxWait: needs budget: (it bounds the"
                + " wait for a budget's token)\n");
  }

  @Test
  void budgetEntriesAreChecked() throws IOException {
    assertThat(run(config("budgets: { erp: { requests: 0, per: 1m } }", ""), "validate").err())
        .isEqualTo(
            "watukuy: watukuy.yaml:2: budgets.erp.requests: '0' is not a whole number of at least 1\n");
    assertThat(run(config("budgets: { erp: { requests: 5 } }", ""), "validate").err())
        .isEqualTo("watukuy: watukuy.yaml:2: budgets.erp: per: missing (a duration, e.g. 1m)\n");
    assertThat(run(config("budgets: { erp: { requests: 5, per: 1x } }", ""), "validate").err())
        .isEqualTo(
            "watukuy: watukuy.yaml:2: budgets.erp.per: '1x' is not a duration (ms, s, m, h, d)\n");
    assertThat(
            run(config("budgets: { erp: { requests: 5, per: 1m, brust: 2 } }", ""), "validate")
                .err())
        .isEqualTo(
            "watukuy: watukuy.yaml:2: budgets.erp.brust: unknown key (expected one of requests, per, burst)\n");
    assertThat(run(config("budgets: { erp: { requests: 5, per: 0s } }", ""), "validate").err())
        .isEqualTo("watukuy: watukuy.yaml:2: budgets.erp.per: must be at least 1ms\n");
    assertThat(run(config("budgets: [erp]", ""), "validate").err())
        .isEqualTo(
            "watukuy: watukuy.yaml:2: budgets: must be a map of budgets, e.g. {erp: {requests: 100, per: 1m}}\n");
  }
}
