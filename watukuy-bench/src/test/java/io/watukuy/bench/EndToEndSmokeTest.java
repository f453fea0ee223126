package io.watukuy.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The CI smoke pass of the end-to-end bench ({@link EndToEnd.Settings#tiny()}): 2 000 items (4
 * pages) per store, every snapshot and timestamp phase and baseline once, a few live changes and
 * 200 idle keys for 1 s. The run checks its own events and pages (it throws otherwise); this
 * asserts only that each phase produced numbers, never how fast. PostgreSQL, MariaDB and Redis are
 * the local ones the tests of their stores use ({@code scripts/services}).
 */
class EndToEndSmokeTest {

  @ParameterizedTest
  @ValueSource(strings = {"memory", "sqlite", "postgres", "mariadb", "redis"})
  void everyPhaseRunsBesideItsBaseline(String store) throws Exception {
    EndToEnd.Result result =
        EndToEnd.run(
            store,
            EndToEnd.Settings.tiny(),
            new BenchStore.Where(
                BenchMain.POSTGRES_URL, BenchMain.REDIS_URI, BenchMain.MARIADB_URL));

    assertThat(result.phases())
        .extracting(EndToEnd.Phase::name)
        .containsExactly(
            "first-sync",
            "idle-rescan",
            "changed-rescan",
            "ts-first-sync",
            "ts-idle-poll",
            "ts-changed-poll");
    // 2 000 items; 1% updated (i % 100 == 50: 20 items), 0.1% deleted (i % 1000 == 7: 2 items).
    assertThat(result.phases())
        .extracting(EndToEnd.Phase::items)
        .containsExactly(2_000, 2_000, 1_998, 2_000, 0, 20);
    assertThat(result.phases())
        .extracting(EndToEnd.Phase::events)
        .containsExactly(2_000L, 0L, 22L, 2_000L, 0L, 20L);
    assertThat(result.phases())
        .allSatisfy(
            p -> {
              assertThat(p.seconds()).isPositive();
              assertThat(p.baselineSeconds()).isPositive();
              assertThat(p.ratio()).isPositive();
            });
    // The process's CPU time over each tick of the snapshot phases (the Camel peer's comparison).
    assertThat(result.phases().subList(0, 3))
        .allSatisfy(p -> assertThat(p.cpuSeconds()).isPositive());
    assertThat(E2eReport.json(result).get("phases").get(0).get("cpuCores").isNumber()).isTrue();
    assertThat(result.live()).isNotNull();
    assertThat(result.live().samples()).isEqualTo(5);
    assertThat(result.live().overhead().p99()).isPositive();
    assertThat(result.idle()).isNotNull();
    assertThat(result.idle().settled()).isTrue();
    assertThat(result.idle().cpuSeconds()).isPositive();
    // The breakdown by thread, with what no listed thread accounts for, adds up to the process's
    // CPU.
    assertThat(result.idle().cpuByThread()).containsKey(IdleKeys.OTHER);
    assertThat(result.idle().cpuByThread().values().stream().mapToDouble(Double::doubleValue).sum())
        .isCloseTo(result.idle().cpuSeconds(), within(1e-9));
    // The commit floor is defined for the SQL stores only (CommitFloor).
    boolean sql = java.util.List.of("sqlite", "postgres", "mariadb").contains(store);
    assertThat(result.commitFloor() != null).isEqualTo(sql);
    assertThat(E2eReport.json(result).get("phases").get(0).get("commitFloorRatio").isNumber())
        .isEqualTo(sql);
    assertThat(E2eReport.table(result)).contains("ratio", "live lane", "idle keys");
    assertThat(E2eReport.json(result).get("phases")).hasSize(6);
    assertThat(E2eReport.json(result).get("items").asInt()).isEqualTo(2_000);
    assertThat(E2eReport.json(result).has("live")).isTrue();
    assertThat(E2eReport.json(result).has("idle")).isTrue();
  }
}
