package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scenarios of {@code src/test/resources/cases/} (each file names the public bug report it
 * comes from) replayed against {@code run --once}: every step sends exactly the listed requests,
 * emits exactly the listed events, stores the listed cursor, marks the listing inconsistent where
 * it says, and ends in an error that monitoring sees (exit 1, the words on stderr and in {@code
 * inspect}) exactly where the scenario says (docs/operations.md, "Stalled lanes" and "False
 * deletes").
 */
class BugReportCasesTest {
  @TempDir Path dir;

  @Test
  void tiesWiderThanAPageWithoutATieBreakParameterStallTheLaneLoudlyWithoutLoopingOrSkipping()
      throws Exception {
    try (CaseReplay replay = new CaseReplay("stall-ties.json", dir)) {
      replay.config(
          """
          store: sqlite:watukuy.db
          pollers:
            - name: contacts
              request:
                url: http://127.0.0.1:%d/contacts
                query: { updatedAfterOrAt: "{{cursor.value}}", limit: 2 }
              response: { items: /results, hasMore: nonEmpty }
              identity: /id
              cursor: { strategy: timestamp, field: updatedAt, tieBreak: id }
          """);
      replayAll(replay, "contacts");
    }
  }

  @Test
  void aTokenHandedBackWithANonEmptyPageEndsTheLaneWithAnErrorBeforeAThirdRequest()
      throws Exception {
    try (CaseReplay replay = new CaseReplay("token-repeat.json", dir)) {
      replay.config(
          """
          store: sqlite:watukuy.db
          pollers:
            - name: instances
              request:
                url: http://127.0.0.1:%d/instances
                query: { nextToken: "{{cursor.value}}" }
              response: { items: /items, next: /nextToken }
              identity: /id
              version: /rev
              cursor: { strategy: token }
          """);
      replayAll(replay, "instances");
    }
  }

  @Test
  void aPageNumberListingThatShiftsUnderTheScanEmitsNoFalseDeleteAndTheNextConsistentOneDoes()
      throws Exception {
    try (CaseReplay replay = new CaseReplay("shifting-offsets.json", dir)) {
      replay.config(
          """
          store: sqlite:watukuy.db
          pollers:
            - name: foos
              request:
                url: http://127.0.0.1:%d/foos
                query: { page: "{{page}}" }
              response: { items: /data, hasMore: nonEmpty, total: /total }
              identity: /id
              version: /rev
              cursor: { strategy: snapshotDiff }
          """);
      replayAll(replay, "foos");
    }
  }

  private static void replayAll(CaseReplay replay, String poller) throws Exception {
    JsonNode steps = replay.scenario.path("steps");
    for (int i = 0; i < steps.size(); i++) {
      JsonNode expect = steps.get(i).path("expect");
      String label = steps.get(i).path("label").asText();
      CaseReplay.Step step = replay.step(i);

      assertThat(step.problems()).as(label + ": requests").isEmpty();
      List<String> events = new ArrayList<>();
      expect.path("events").forEach(e -> events.add(e.asText()));
      assertThat(step.events()).as(label + ": events").containsExactlyElementsOf(events);
      if (expect.has("cursor"))
        assertThat(replay.cursor(poller)).as(label + ": cursor").isEqualTo(cursor(expect));
      JsonNode inspected =
          CaseReplay.JSON
              .readTree(CliRun.of("inspect", replay.configFile(), "--json").stdout())
              .path("pollers")
              .get(0);
      assertThat(inspected.path("lastPoll").path("inconsistent").asBoolean())
          .as(label + ": lastPoll.inconsistent")
          .isEqualTo(expect.path("inconsistent").asBoolean(false));
      JsonNode error = expect.path("error");
      if (error.isNull() || error.isMissingNode()) {
        assertThat(step.exit()).as(label + ": exit, " + step.stderr()).isZero();
      } else {
        assertThat(step.exit()).as(label + ": exit, " + step.stderr()).isEqualTo(1);
        for (JsonNode word : error.path("contains"))
          assertThat(step.stderr()).as(label + ": stderr").contains(word.asText());
        String inspect = CliRun.of("inspect", replay.configFile()).stdout();
        for (JsonNode word : error.path("contains"))
          assertThat(inspect).as(label + ": inspect").contains(word.asText());
      }
    }
  }

  /** The expected stored cursor: the scenario writes a token as a JSON string. */
  private static JsonNode cursor(JsonNode expect) {
    JsonNode c = expect.path("cursor");
    return c.isMissingNode() || c.isNull() ? null : c;
  }
}
