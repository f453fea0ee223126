package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigErrorsTest {
  @TempDir Path dir;

  private static final String VALID =
      """
      store: memory
      pollers:
        - name: orders
          request:
            url: http://127.0.0.1:9/orders
            headers: { Authorization: "Bearer ${ERP_TOKEN}" }
            query:
              updated_since: "{{cursor.value}}"
          response:
            items: /data
          identity: /id
          cursor:
            strategy: timestamp
            field: updatedAt
            lag: 30s
      """;

  private String[] run(String yaml, String... args) throws IOException {
    Path file = dir.resolve("watukuy.yaml");
    Files.writeString(file, yaml);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    String[] argv = new String[args.length + 2];
    argv[0] = "validate";
    argv[1] = file.toString();
    int code =
        Main.run(
            argv,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.of("ERP_TOKEN", "t0ps3cret")::get);
    return new String[] {
      String.valueOf(code),
      out.toString(StandardCharsets.UTF_8),
      err.toString(StandardCharsets.UTF_8)
          .replace(dir.resolve("watukuy.yaml").toString(), "watukuy.yaml")
    };
  }

  @Test
  void aValidConfigPassesValidation() throws IOException {
    String[] r = run(VALID);
    assertThat(r[0]).isEqualTo("0");
    assertThat(r[2]).isEmpty();
  }

  @Test
  void aBadDurationNamesFileLinePollerAndKey() throws IOException {
    String[] r = run(VALID.replace("lag: 30s", "lag: 30x"));
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2])
        .isEqualTo(
            "watukuy: watukuy.yaml:15: poller orders: cursor.lag: '30x' is not a duration (ms, s, m, h, d)\n");
  }

  @Test
  void anUnknownKeyIsAnErrorNamingTheKey() throws IOException {
    String[] r = run(VALID.replace("      lag: 30s", "      lag: 30s\n      lagg: 1m"));
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2])
        .isEqualTo(
            "watukuy: watukuy.yaml:16: poller orders: cursor.lagg: unknown key"
                + " (expected one of strategy, field, tieBreak, initial, lag, overlap, format, zone,"
                + " maxOffset, sorted)\n");
  }

  @Test
  void aMissingIdentityIsAnErrorAtThePoller() throws IOException {
    String[] r = run(VALID.replace("    identity: /id\n", ""));
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2])
        .isEqualTo(
            "watukuy: watukuy.yaml:3: poller orders: identity: missing"
                + " (a pointer to each item's id, e.g. /id)\n");
  }

  @Test
  void anUnknownStrategyIsAnError() throws IOException {
    String[] r = run(VALID.replace("strategy: timestamp", "strategy: cursorless"));
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2])
        .isEqualTo(
            "watukuy: watukuy.yaml:13: poller orders: cursor.strategy: 'cursorless'"
                + " is not a strategy (timestamp, token, page, snapshotDiff)\n");
  }

  @Test
  void aMissingEnvironmentVariableIsNamedAndNoSecretIsPrinted() throws IOException {
    String[] r = run(VALID.replace("${ERP_TOKEN}", "${ERP_TOKEN_MISSING}"));
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2])
        .isEqualTo(
            "watukuy: watukuy.yaml:6: poller orders: request.headers.Authorization:"
                + " environment variable ERP_TOKEN_MISSING is not set\n");
  }

  @Test
  void anUnknownTopLevelKeyIsAnError() throws IOException {
    String[] r = run("outptu: stdout\n" + VALID);
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2])
        .isEqualTo(
            "watukuy: watukuy.yaml:1: outptu: unknown key (expected one of store, output, sink, delivery, budgets, budgetStore, lease, auths, secretKey, pollers, effects)\n");
  }

  @Test
  void aLeaseTtlUnderOneSecondIsAnErrorNamingTheValue() throws IOException {
    String[] r = run("lease: { ttl: 500ms }\n" + VALID);
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2])
        .isEqualTo(
            "watukuy: watukuy.yaml:1: lease.ttl: '500ms' is too short: at least 1s (the lease is"
                + " renewed every third of it)\n");
  }

  @Test
  void anUnknownTemplateVariableIsAnError() throws IOException {
    String[] r = run(VALID.replace("{{cursor.value}}", "{{cursor.valeu}}"));
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2])
        .startsWith(
            "watukuy: watukuy.yaml:8: poller orders: request.query.updated_since:"
                + " unknown template variable {{cursor.valeu}}");
  }

  @Test
  void reconcileUnderSnapshotDiffIsAnErrorAtTheReconcileLine() throws IOException {
    String yaml =
        VALID
                .replace("      field: updatedAt\n      lag: 30s\n", "")
                .replace("strategy: timestamp", "strategy: snapshotDiff")
            + """
            reconcile:
              every: 6h
              request: { url: "http://127.0.0.1:9/orders?page={{page}}" }
              response: { items: /data }
        """;
    String[] r = run(yaml);
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2])
        .isEqualTo(
            "watukuy: watukuy.yaml:14: poller orders: reconcile: not with cursor.strategy"
                + " snapshotDiff, which lists everything every cycle already\n");
  }

  @Test
  void aLinkHeaderNextWithHasMoreIsAnError() throws IOException {
    String[] r =
        run(
            VALID.replace(
                "      items: /data\n",
                "      items: /data\n      hasMore: /has_more\n      next: { header: Link }\n"));
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2])
        .isEqualTo(
            "watukuy: watukuy.yaml:11: poller orders: response.hasMore: must be omitted"
                + " with next: {header: Link}, whose rel=\"next\" link says whether more pages exist\n");
  }

  @Test
  void aValidReconcileAndLinkPagingPassValidation() throws IOException {
    String yaml =
        VALID.replace("      items: /data\n", "      items: /data\n      next: { header: Link }\n")
            + """
            reconcile:
              every: 6h
              request:
                url: http://127.0.0.1:9/orders
                headers: { Authorization: "Bearer ${ERP_TOKEN}" }
                query: { page: "{{page}}" }
              response: { items: /data, next: { header: Link } }
        """;
    String[] r = run(yaml);
    assertThat(r[2]).isEmpty();
    assertThat(r[0]).isEqualTo("0");
  }

  @Test
  void aBatchSizeBelowOneIsRefusedWithItsLine() throws IOException {
    String[] r = run("delivery: { concurrency: 2, batchSize: 0 }\n" + VALID);

    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2])
        .isEqualTo(
            "watukuy: watukuy.yaml:1: delivery.batchSize: '0' is not a whole number of at least 1\n");
  }

  @Test
  void aBatchSizeTooLargeForAnIntSaysSoAndAListIsNamedAsWritten() throws IOException {
    String[] tooLarge = run("delivery: { batchSize: 99999999999 }\n" + VALID);
    assertThat(tooLarge[0]).isEqualTo("2");
    assertThat(tooLarge[2])
        .isEqualTo(
            "watukuy: watukuy.yaml:1: delivery.batchSize: '99999999999' is more than 2147483647,"
                + " the largest allowed\n");

    String[] list = run("delivery: { batchSize: [1] }\n" + VALID);
    assertThat(list[0]).isEqualTo("2");
    assertThat(list[2])
        .isEqualTo(
            "watukuy: watukuy.yaml:1: delivery.batchSize: '[1]' is not a whole number of at least 1\n");
  }
}
