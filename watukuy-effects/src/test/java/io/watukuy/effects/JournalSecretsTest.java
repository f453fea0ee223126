package io.watukuy.effects;

import static io.watukuy.effects.EffectFixture.ORDERS;
import static io.watukuy.effects.EffectFixture.byCustomer;
import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.EventType;
import io.watukuy.effects.EffectFixture.Order;
import io.watukuy.internal.Json;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.JournalEntry;
import io.watukuy.spi.StateStore;
import io.watukuy.store.sqlite.SqliteStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/effects.md, "The journal": the engine's secrets never reach a journal row. A token in an
 * HTTP call's path (its label) and a secret with a quote and a backslash echoed in a response body
 * (escaped twice where the row keeps the body as a JSON string, three times when the receiver
 * echoes the request body inside a JSON string) or returned by a named call are stored as {@code
 * [redacted]}, which is what a replay then reads. Checked on the rows of the memory store and on
 * the bytes of a SQLite store's files.
 */
class JournalSecretsTest {
  private static final String PATH_SECRET = "path-S3cret-0042";
  private static final String BODY_SECRET = "b\"dy\\S3cret-77";

  /** Every form of the secrets a stored row could hold them in: plain, escaped once and twice. */
  private static final List<String> FORMS =
      List.of(
          PATH_SECRET,
          BODY_SECRET,
          "b\\\"dy\\\\S3cret-77",
          "b\\\\\\\"dy\\\\\\\\S3cret-77",
          "S3cret-77",
          "S3cret-0042");

  @TempDir Path dir;

  @AutoClose
  private final LocalReceiver receiver =
      LocalReceiver.start()
          .reading(
              "/",
              (x, body) -> {
                // An API echoing the token back, in the body's JSON and in a header.
                x.getResponseHeaders().add("X-Echo", BODY_SECRET);
                LocalReceiver.reply(
                    x,
                    200,
                    "{\"echo\":\"b\\\"dy\\\\S3cret-77\",\"ok\":true}"
                        .getBytes(StandardCharsets.UTF_8));
              })
          .reading(
              "/echo",
              (x, sent) -> {
                // An API echoing the raw request body inside a JSON string, as httpbin's "data".
                LocalReceiver.reply(
                    x,
                    200,
                    Json.MAPPER
                        .writeValueAsString(Map.of("data", sent))
                        .getBytes(StandardCharsets.UTF_8));
              });

  private final String base = receiver.base();

  /**
   * Runs one invocation that makes both calls and fails once after them, so the second attempt
   * reads them back from the journal; returns what each attempt got, the body and the named result.
   */
  private List<String> run(EffectFixture<? extends StateStore> f) {
    List<String> got = new CopyOnWriteArrayList<>();
    Arm<Order> arm =
        (ctx, e) -> {
          EffectHttp.Response r =
              ctx.http().send(EffectHttp.Request.of("POST", base + "/hooks/" + PATH_SECRET));
          got.add(r.body());
          got.add(ctx.call("issue-token", e.data().customer(), String.class, () -> BODY_SECRET));
          if (ctx.attempt() == 1) throw new IllegalStateException("the next step failed");
        };
    f.runTwice("alice", List.of(PATH_SECRET, BODY_SECRET), arm, Duration.ofMillis(200));
    assertThat(f.row("Notify", 1).orElseThrow().status()).isEqualTo(InvocationStatus.DONE);
    return got;
  }

  @Test
  void theMemoryStoresRowsHoldNoSecretAndAReplayReadsTheRedactedValues() {
    EffectFixture<?> f = EffectFixture.memory();
    List<String> got = run(f);

    List<JournalEntry> rows = f.effects.listJournal("Notify", ORDERS, 1, 0, 10);
    assertThat(rows).hasSize(2);
    assertThat(rows.get(0).label()).isEqualTo("POST " + base + "/hooks/[redacted]");
    assertThat(rows.get(1).result()).isEqualTo("\"[redacted]\"");
    for (JournalEntry row : rows)
      for (String form : FORMS)
        assertThat(row.label() + row.result()).doesNotContain(form).contains("[redacted]");
    // The first attempt had the fresh values; the replay reads what was stored.
    assertThat(got)
        .containsExactly(
            "{\"echo\":\"b\\\"dy\\\\S3cret-77\",\"ok\":true}",
            BODY_SECRET,
            "{\"echo\":\"[redacted]\",\"ok\":true}",
            "[redacted]");
  }

  /** The SQLite store's files as text, one byte a character. */
  private String files() throws IOException {
    List<String> contents = new ArrayList<>();
    try (Stream<Path> list = Files.list(dir)) {
      for (Path file : list.toList())
        contents.add(Files.readString(file, StandardCharsets.ISO_8859_1));
    }
    return String.join("\n", contents);
  }

  /** {@code text} JSON-escaped {@code depth} times, as string content. */
  private static String escaped(String text, int depth) throws IOException {
    String form = text;
    for (int i = 0; i < depth; i++) {
      String quoted = Json.MAPPER.writeValueAsString(form);
      form = quoted.substring(1, quoted.length() - 1);
    }
    return form;
  }

  @Test
  void aBodyEchoedInsideAJsonStringLeavesNoSecretInTheSqliteFile() throws IOException {
    // The body {"password":"b\"dy\\S3cret-77"} comes back as the string "data" of the answer,
    // which the row keeps as its body string: the secret is escaped three times in the file.
    Path db = dir.resolve("effects.db");
    List<String> got = new CopyOnWriteArrayList<>();
    try (SqliteStore store = SqliteStore.open(db)) {
      EffectFixture<SqliteStore> f = new EffectFixture<>(store);
      Arm<Order> arm =
          (ctx, e) -> {
            String body = Json.MAPPER.writeValueAsString(Map.of("password", BODY_SECRET));
            got.add(
                ctx.http().send(EffectHttp.Request.of("POST", base + "/echo").body(body)).body());
            if (ctx.attempt() == 1) throw new IllegalStateException("the next step failed");
          };
      f.created("alice");
      Effects effects =
          f.builder("engine-1")
              .secrets(List.of(BODY_SECRET))
              .add(f.effect("Notify").on(EventType.CREATED, arm, byCustomer()).build())
              .build();
      EffectFixture.drain(effects, "Notify");
      f.clock.advance(Duration.ofMillis(200));
      EffectFixture.drain(effects, "Notify");
      assertThat(f.row("Notify", 1).orElseThrow().status()).isEqualTo(InvocationStatus.DONE);
    }

    // The first attempt read the echo; the replay reads the stored, redacted one.
    assertThat(got).hasSize(2);
    assertThat(got.get(0)).contains(escaped(BODY_SECRET, 2));
    assertThat(got.get(1)).contains("[redacted]").doesNotContain("S3cret-77");
    String all = files();
    assertThat(all).contains("[redacted]");
    for (int depth = 0; depth <= 4; depth++)
      assertThat(all).doesNotContain(escaped(BODY_SECRET, depth));
    assertThat(all).doesNotContain("S3cret-77");
  }

  @Test
  void aSqliteStoreFileHoldsNoSecretInAnyForm() throws IOException {
    Path db = dir.resolve("effects.db");
    try (SqliteStore store = SqliteStore.open(db)) {
      List<String> got = run(new EffectFixture<>(store));
      assertThat(got).hasSize(4).endsWith("[redacted]");
    }

    List<Path> files;
    try (Stream<Path> list = Files.list(dir)) {
      files = list.toList();
    }
    assertThat(files).contains(db);
    List<String> contents = new ArrayList<>();
    for (Path file : files) contents.add(Files.readString(file, StandardCharsets.ISO_8859_1));
    String all = String.join("\n", contents);
    assertThat(all).contains("[redacted]").contains("issue-token");
    for (String form : FORMS) assertThat(all).doesNotContain(form);
  }
}
