package io.watukuy.cli;

import static io.watukuy.cli.EffectsTestStore.NOW;
import static io.watukuy.cli.EffectsTestStore.ORDERS;
import static io.watukuy.cli.EffectsTestStore.T0;
import static io.watukuy.cli.EffectsTestStore.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.watukuy.spi.EffectCursor;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.Lease;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state {@code watukuy effects list|show} derive from the store (docs/effects.md, "States";
 * docs/config.md, "Effects commands"), and the in-flight lanes {@code show} lists, on a SQLite
 * store seeded through the EffectStore SPI as an engine would leave it, on a fixed clock.
 */
class EffectsStateCommandTest {
  private static final Map<String, String> CUSTOMER = Map.of("created", "customer");

  @TempDir Path dir;
  private EffectsTestStore fx;
  private EffectStore effects;

  @BeforeEach
  void seed() {
    fx = new EffectsTestStore(dir);
    effects = fx.effects;
    // The log of orders: events 1 to 5, so its head is 5.
    fx.logOrders(5);
    // Caught up at the head: ok.
    cursor("Fine", 5);
    // Position 3 of 5 with nothing failed: lagging by 2.
    cursor("Behind", 3);
    // Failed at 3 above position 2: wedged.
    cursor("Stuck", 2);
    invocation("Stuck", 3, InvocationStatus.FAILED, "HTTP 503 from crm", T0);
    // Failed too, and quarantined: the quarantine outranks the wedge.
    cursor("Paused", 2);
    invocation("Paused", 3, InvocationStatus.FAILED, "HTTP 503 from crm", T0);
    effects.setQuarantine("Paused", "crm migration", T0);
  }

  @AfterEach
  void close() {
    fx.close();
  }

  private void cursor(String effect, long watermark) {
    Lease lease = fx.engineLease(effect);
    effects.saveCursor(new EffectCursor(effect, ORDERS, watermark, 4L, CUSTOMER, T0), lease);
    effects.releaseEffectLease(effect, lease);
  }

  private void invocation(
      String effect,
      long position,
      InvocationStatus status,
      @Nullable String error,
      Instant started) {
    invocation(effect, position, status, 2, error, started);
  }

  private void invocation(
      String effect,
      long position,
      InvocationStatus status,
      int attempt,
      @Nullable String error,
      Instant started) {
    Lease lease = fx.engineLease(effect);
    effects.saveInvocation(
        new InvocationRow(
            effect,
            ORDERS,
            position,
            "customer:" + position,
            "created",
            status,
            attempt,
            error,
            null,
            false,
            "1.0",
            started,
            started),
        lease);
    effects.releaseEffectLease(effect, lease);
  }

  /** A config over the seeded store declaring {@code Stuck} with key scheme {@code scheme}. */
  private Path config(String scheme) throws IOException {
    return fx.config(
        "watukuy.yaml",
        """
          - name: Stuck
            source: orders
            on: [created]
            key: { scheme: %s, value: /item/customer }
            request: { url: "http://127.0.0.1:9/hook" }
        """
            .formatted(scheme));
  }

  @Test
  void listShowsEachStateInPrecedenceOrder() {
    CliRun r = cli("effects", "list", "--store", fx.uri());

    assertThat(r.exit()).isZero();
    assertThat(r.stdout().lines())
        .containsExactly(
            "Behind\tlagging\torders=3\t0\t0\t-",
            "Fine\tok\torders=5\t0\t0\t-",
            "Paused\tquarantined\torders=2\t0\t0\t2026-01-05T10:00:00Z crm migration",
            "Stuck\twedged\torders=2\t0\t0\t-");
    // Stuck has rows above its position: without its declaring config, blocked is not judged.
    assertThat(r.stderr())
        .isEqualTo(
            "watukuy: effect Stuck: no config at hand declares it, so its state leaves out"
                + " blocked; blocked is judged against the declaring program: Effects.plan() or"
                + " GET /admin/effects/Stuck\n");
  }

  @Test
  void listAsJsonCarriesTheStateAndEachSourcesLag() throws IOException {
    CliRun r = cli("effects", "list", "--store", fx.uri(), "--json");

    List<JsonNode> lines = r.stdout().lines().map(this::read).toList();
    JsonNode behind = lines.get(0);
    assertThat(behind.get("state").asText()).isEqualTo("lagging");
    assertThat(behind.get("blockedJudged").asBoolean()).isTrue();
    JsonNode source = behind.get("sources").get(0);
    assertThat(source.get("head").asLong()).isEqualTo(5);
    assertThat(source.get("lag").asLong()).isEqualTo(2);
    assertThat(source.get("blocked").isNull()).isTrue();
    assertThat(lines.get(3).get("state").asText()).isEqualTo("wedged");
    assertThat(lines.get(3).get("blockedJudged").asBoolean()).isFalse();
  }

  @Test
  void aYamlKeySchemeChangeWithOutstandingRowsShowsBlockedNamingTheMovedTypes() throws IOException {
    Path config = config("account");

    CliRun text = cli("effects", "show", config.toString(), "Stuck");
    CliRun json = cli("effects", "show", config.toString(), "Stuck", "--json");
    CliRun list = cli("effects", "list", config.toString());

    String reason =
        "blocked: the key scheme of created (customer → account) moved while 1 lane(s) have 1"
            + " invocation row(s) above position 2; drain them under the previous key first, or"
            + " rewind to 2";
    assertThat(text.exit()).isZero();
    assertThat(text.stdout().lines())
        .startsWith("effect Stuck", "  state: blocked")
        .contains(
            // a blocked key runs nothing, so no retry is due: no stuck lane, as the engine says
            "  source orders: position 2, lag 3 (head 5), live boundary 4, 0 stuck lane(s)",
            "    " + reason)
        .noneMatch(l -> l.contains("stuck lane customer"));
    JsonNode shown = read(json.stdout());
    assertThat(shown.get("sources").get(0).get("stuckLanes")).isEmpty();
    assertThat(shown.get("state").asText()).isEqualTo("blocked");
    assertThat(shown.get("blockedJudged").asBoolean()).isTrue();
    assertThat(shown.get("sources").get(0).get("blocked").asText()).isEqualTo(reason);
    assertThat(list.stdout().lines()).contains("Stuck\tblocked\torders=2\t0\t0\t-");
    // Blocked outranks the wedge; the quarantine outranks both, judged or not.
    assertThat(list.stdout().lines()).anyMatch(l -> l.startsWith("Paused\tquarantined\t"));
    assertThat(list.stderr()).isEmpty();
  }

  @Test
  void anUnchangedSchemeReadsWedgedAndIsJudged() throws IOException {
    CliRun text = cli("effects", "show", config("customer").toString(), "Stuck");

    assertThat(text.stdout().lines()).startsWith("effect Stuck", "  state: wedged");
    assertThat(text.stdout()).doesNotContain("blocked");
  }

  @Test
  void showWithoutTheDeclaringConfigSaysBlockedIsNotJudged() {
    CliRun text = cli("effects", "show", "--store", fx.uri(), "Stuck");
    CliRun json = cli("effects", "show", "--store", fx.uri(), "Stuck", "--json");

    assertThat(text.stdout().lines())
        .startsWith(
            "effect Stuck",
            "  state: wedged (blocked is judged against the declaring program: Effects.plan() or"
                + " GET /admin/effects/Stuck)");
    assertThat(read(json.stdout()).get("blockedJudged").asBoolean()).isFalse();
  }

  @Test
  void showListsAFirstAttemptRunningForThirtySecondsOrMoreAsInFlight() {
    // Behind runs 4 since 31 s (attempt 1, its HTTP call re-sending), and 5 since 29 s: only 4 is
    // in flight, and neither is stuck, since no attempt of them failed (docs/effects.md, "States").
    String resend = "POST https://crm.example.com/v1/notes: HTTP 503, re-sending (attempt 2 of 4)";
    invocation("Behind", 4, InvocationStatus.RUNNING, 1, resend, NOW.minusSeconds(31));
    invocation("Behind", 5, InvocationStatus.RUNNING, 1, null, NOW.minusSeconds(29));
    CliRun stopped = cli("effects", "show", "--store", fx.uri(), "Behind");
    CliRun stoppedJson = cli("effects", "show", "--store", fx.uri(), "Behind", "--json");
    // with no engine no time runs for the row: no runningMs, and it says it was left running
    JsonNode left = read(stoppedJson.stdout()).get("sources").get(0).get("inFlight").get(0);
    assertThat(left.get("runningMs").isNull()).isTrue();
    assertThat(left.get("leftRunning").asBoolean()).isTrue();
    // an engine runs the effect now: its lease is held past NOW
    Lease engine =
        effects.acquireEffectLease("Behind", "engine-2", Duration.ofSeconds(30), NOW).orElseThrow();

    CliRun text = cli("effects", "show", "--store", fx.uri(), "Behind");
    CliRun json = cli("effects", "show", "--store", fx.uri(), "Behind", "--json");
    CliRun list = cli("effects", "list", "--store", fx.uri());
    effects.releaseEffectLease("Behind", engine);

    // with no engine, the row is what a stopped engine left: it runs nowhere
    assertThat(stopped.stdout().lines())
        .contains(
            "    in flight lane customer:4 at 4 when its engine stopped (no engine runs it; it"
                + " replays at the next start), attempt 1: "
                + resend);

    assertThat(text.stdout().lines())
        .contains(
            "  state: lagging (blocked is judged against the declaring program: Effects.plan() or"
                + " GET /admin/effects/Behind)",
            "  source orders: position 3, lag 2 (head 5), live boundary 4, 0 stuck lane(s)",
            "    in flight lane customer:4 at 4 for 31s, attempt 1: " + resend)
        .noneMatch(l -> l.contains("at 5 for"))
        .noneMatch(l -> l.contains("stuck lane customer"));
    assertThat(list.stdout().lines()).contains("Behind\tlagging\torders=3\t0\t0\t-");
    JsonNode source = read(json.stdout()).get("sources").get(0);
    assertThat(source.get("stuckLanes")).isEmpty();
    JsonNode inFlight = source.get("inFlight");
    assertThat(inFlight).hasSize(1);
    assertThat(inFlight.get(0).get("lane").asText()).isEqualTo("customer:4");
    assertThat(inFlight.get(0).get("position").asLong()).isEqualTo(4);
    assertThat(inFlight.get(0).get("attempt").asInt()).isEqualTo(1);
    assertThat(inFlight.get(0).get("runningMs").asLong()).isEqualTo(31_000);
    assertThat(inFlight.get(0).get("leftRunning").asBoolean()).isFalse();
    assertThat(inFlight.get(0).get("error").asText()).isEqualTo(resend);
  }

  @Test
  void aRetryRunningAfterAFailureIsAStuckLaneAndTheEffectStaysWedged() {
    // Behind's lane at 4 failed and its attempt 2 runs since 43 s, the failure kept on the row:
    // the lane is stuck while its retry runs (docs/effects.md, "States"), so the state does not
    // flip to lagging on every attempt, and the lane is in no in-flight list.
    invocation("Behind", 4, InvocationStatus.RUNNING, 2, "HTTP 503 from crm", NOW.minusSeconds(43));
    Lease engine =
        effects.acquireEffectLease("Behind", "engine-2", Duration.ofSeconds(30), NOW).orElseThrow();

    CliRun text = cli("effects", "show", "--store", fx.uri(), "Behind");
    CliRun json = cli("effects", "show", "--store", fx.uri(), "Behind", "--json");
    CliRun list = cli("effects", "list", "--store", fx.uri());
    effects.releaseEffectLease("Behind", engine);
    CliRun stopped = cli("effects", "show", "--store", fx.uri(), "Behind");

    assertThat(text.stdout().lines())
        .contains(
            "  state: wedged (blocked is judged against the declaring program: Effects.plan() or"
                + " GET /admin/effects/Behind)",
            "  source orders: position 3, lag 2 (head 5), live boundary 4, 1 stuck lane(s)",
            "    stuck lane customer:4 at 4: attempt 2 running for 43s: HTTP 503 from crm")
        .noneMatch(l -> l.contains("in flight"));
    assertThat(list.stdout().lines()).contains("Behind\twedged\torders=3\t0\t0\t-");
    JsonNode shown = read(json.stdout());
    assertThat(shown.get("state").asText()).isEqualTo("wedged");
    JsonNode source = shown.get("sources").get(0);
    assertThat(source.get("inFlight")).isEmpty();
    assertThat(source.get("stuckLanes")).hasSize(1);
    JsonNode lane = source.get("stuckLanes").get(0);
    assertThat(lane.get("position").asLong()).isEqualTo(4);
    assertThat(lane.get("attempt").asInt()).isEqualTo(2);
    assertThat(lane.get("runningMs").asLong()).isEqualTo(43_000);
    assertThat(lane.get("retryInMs").asLong()).isZero();
    assertThat(lane.get("error").asText()).isEqualTo("HTTP 503 from crm");
    // with no engine holding the lease the retry runs nowhere, and the line says so
    assertThat(stopped.stdout().lines())
        .contains(
            "    stuck lane customer:4 at 4: attempt 2 when its engine stopped (no engine runs it;"
                + " it replays at the next start): HTTP 503 from crm");
  }

  @Test
  void aWaitingStuckLaneHasNoRunningTime() {
    CliRun json = cli("effects", "show", "--store", fx.uri(), "Stuck", "--json");

    JsonNode lane = read(json.stdout()).get("sources").get(0).get("stuckLanes").get(0);
    assertThat(lane.get("position").asLong()).isEqualTo(3);
    assertThat(lane.get("runningMs").isNull()).isTrue();
  }

  private JsonNode read(String json) {
    try {
      return new ObjectMapper().readTree(json);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
