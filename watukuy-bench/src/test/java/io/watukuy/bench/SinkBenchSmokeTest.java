package io.watukuy.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The CI smoke pass of the sink bench ({@link SinkBench.Settings#tiny()}: 500 events, one round) on
 * the sinks that need no broker started: file, webhook (a receiver in this JVM) and the table on
 * SQLite, without and with {@code sameDatabase}. The run checks that every pass delivered every
 * event and that the sink's destination holds them (it throws otherwise); this asserts that each
 * row produced its three rates and its read-back, never how fast.
 */
class SinkBenchSmokeTest {
  private static final List<String> SINKS =
      List.of("file", "webhook", "table-sqlite", "table-sqlite-same");

  @Test
  void theSinksThatNeedNoBrokerRunBesideTheirRawClients() throws Exception {
    SinkBench.Settings tiny = SinkBench.Settings.tiny();
    SinkTargets.Servers servers =
        new SinkTargets.Servers(
            BenchMain.POSTGRES_URL,
            BenchMain.RABBITMQ_URI,
            BenchMain.NATS_URL,
            null,
            Path.of(BenchMain.KAFKA_CLASSPATH));
    BenchStore.Where where =
        new BenchStore.Where(BenchMain.POSTGRES_URL, BenchMain.REDIS_URI, BenchMain.MARIADB_URL);
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    List<SinkBench.Row> rows = new ArrayList<>();
    try (PrintStream out = new PrintStream(progress, true, StandardCharsets.UTF_8)) {
      for (String name : SINKS)
        try (SinkTarget target = SinkTargets.open(name, servers, null)) {
          rows.add(SinkBench.run(target, where, tiny, out));
        }
    }

    assertThat(rows).extracting(SinkBench.Row::name).containsExactlyElementsOf(SINKS);
    assertThat(rows)
        .extracting(SinkBench.Row::store)
        .containsExactly("memory", "memory", "memory", "sqlite");
    assertThat(rows)
        .allSatisfy(
            r -> {
              assertThat(r.sink()).hasSize(1);
              assertThat(r.sink().get(0).events()).isEqualTo(500);
              assertThat(r.raw().get(0).events()).isEqualTo(500);
              assertThat(SinkBench.Row.best(r.sink())).isPositive();
              assertThat(SinkBench.Row.best(r.raw())).isPositive();
              assertThat(SinkBench.Row.best(r.alone())).isPositive();
              assertThat(r.ratio()).isPositive();
              // every sink here is read back: the destination holds each event once
              assertThat(r.readBack()).containsExactly(500L);
            });
    assertThat(rows.get(2).target()).isEqualTo(0.5);
    assertThat(rows.get(0).target()).isNaN();
    assertThat(progress.toString(StandardCharsets.UTF_8)).contains("file round 1: engine alone");

    JsonNode json = SinkReport.json(rows, tiny, "0.00");
    assertThat(json.get("bench").asText()).isEqualTo("sinks");
    assertThat(json.get("events").asInt()).isEqualTo(500);
    assertThat(json.get("included").asText()).contains("outbox", "raw events/s");
    assertThat(json.get("sinks")).hasSize(4);
    assertThat(json.get("sinks").get(3).get("sinkName").asText()).contains("table");
    assertThat(json.get("sinks").get(0).get("rounds").get(0).get("readBack").asLong())
        .isEqualTo(500);
    assertThat(SinkReport.table(rows, tiny)).contains("raw ev/s", "table-sqlite-same");
  }
}
