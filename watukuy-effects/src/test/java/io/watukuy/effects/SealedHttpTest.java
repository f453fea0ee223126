package io.watukuy.effects;

import static io.watukuy.effects.EffectFixture.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import io.watukuy.SealingKeys;
import io.watukuy.effects.EffectFixture.Order;
import io.watukuy.effects.internal.EffectRun;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.JournalEntry;
import io.watukuy.store.sqlite.SqliteStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * docs/effects.md, "HTTP calls" and "Sealed documents": a journaled HTTP request naming a subject
 * keeps its response sealed under the subject's key, and after {@code Effects.erase(subject)} its
 * replay is a terminal failure that sends nothing, as for a named call with a subject. Against a
 * real server on 127.0.0.1.
 */
class SealedHttpTest {
  private static final SealingKeys SECRET_KEY =
      SealingKeys.builder()
          .key("secretKey", "k1", Base64.getEncoder().encodeToString(new byte[32]))
          .random(new Random(1))
          .build();

  private static final String EFFECT = "Notify";
  private static final String PROFILE = "{\"email\":\"alice@example.com\"}";

  @TempDir Path dir;
  private EffectFixture<?> fixture = EffectFixture.memory();
  private final List<String> seen = Collections.synchronizedList(new ArrayList<>());
  private LocalReceiver server;
  private String base;

  @BeforeEach
  void start() {
    server = LocalReceiver.start().route("/", this::answer);
    base = server.base();
  }

  @AfterEach
  void stop() {
    server.close();
    if (fixture.store instanceof SqliteStore sqlite) sqlite.close();
  }

  /** The memory store, or SQLite in a file of {@link #dir}, whose bytes the test can read. */
  private void store(String kind) {
    if (kind.equals("sqlite"))
      fixture = new EffectFixture<>(SqliteStore.open(dir.resolve("effects.db")));
  }

  /** Every byte the SQLite store wrote (database, journal and WAL files) as ISO-8859-1 text. */
  private String onDisk() throws IOException {
    StringBuilder all = new StringBuilder();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : files.toList())
        all.append(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1));
    }
    return all.toString();
  }

  private void answer(HttpExchange x) throws IOException {
    x.getRequestBody().readAllBytes();
    seen.add(x.getRequestMethod() + " " + x.getRequestURI().getRawPath());
    byte[] out = PROFILE.getBytes(StandardCharsets.UTF_8);
    x.getResponseHeaders().add("Content-Type", "application/json");
    x.sendResponseHeaders(200, out.length);
    x.getResponseBody().write(out);
    x.close();
  }

  private Effects effects(Arm<Order> arm, @Nullable SealingKeys secretKey) {
    return fixture.createdByCustomer(EFFECT, arm, secretKey);
  }

  private InvocationRow row(long position) {
    return fixture.row(EFFECT, position).orElseThrow();
  }

  /** GETs the customer's profile naming the customer as subject, then fails until told not to. */
  private Arm<Order> lookupThenFail(AtomicInteger attempts, List<String> bodies) {
    return (ctx, e) -> {
      attempts.incrementAndGet();
      EffectHttp.Response r =
          ctx.http()
              .send(
                  EffectHttp.Request.of("GET", base + "/profiles/" + e.data().customer())
                      .subject(e.data().customer()));
      bodies.add(r.body());
      throw new IllegalStateException("the mail server is down");
    };
  }

  /** The attempts {@link #firstAttemptFailed} made, and the response bodies they read. */
  private final AtomicInteger attempts = new AtomicInteger();

  private final List<String> bodies = Collections.synchronizedList(new ArrayList<>());

  /**
   * On the store {@code kind}, alice created and one attempt of {@link #lookupThenFail} with the
   * secret key: its call sent and journaled, then failed.
   */
  private Effects firstAttemptFailed(String kind) {
    store(kind);
    fixture.created("alice");
    Effects effects = effects(lookupThenFail(attempts, bodies), SECRET_KEY);
    EffectFixture.drain(effects, EFFECT);
    return effects;
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "sqlite"})
  void aResponseNamingASubjectIsJournaledSealedAndReplayedWithoutSending(String kind)
      throws IOException {
    Effects effects = firstAttemptFailed(kind);

    JournalEntry entry = fixture.effects.listJournal(EFFECT, ORDERS, 1, 0, 10).get(0);
    assertThat(entry.subject()).isEqualTo("alice");
    assertThat(entry.result()).startsWith("v1:").doesNotContain("alice@example.com");
    assertThat(entry.label()).isEqualTo("GET " + base + "/profiles/alice");
    if (kind.equals("sqlite")) assertThat(onDisk()).contains("v1:").doesNotContain("alice@");

    fixture.clock.advance(EffectRun.BACKOFF.cap(1));
    EffectFixture.drain(effects, EFFECT);

    // The second attempt reveals the journaled response: the same body, no second request.
    assertThat(attempts).hasValue(2);
    assertThat(bodies).containsExactly(PROFILE, PROFILE);
    assertThat(seen).containsExactly("GET /profiles/alice");
    assertThat(row(1).status()).isEqualTo(InvocationStatus.FAILED);
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "sqlite"})
  void aReplayAfterErasureIsTerminalAndSendsNothing(String kind) {
    Effects effects = firstAttemptFailed(kind);
    assertThat(row(1).status()).isEqualTo(InvocationStatus.FAILED);

    assertThat(effects.erase("alice")).isTrue();
    fixture.clock.advance(EffectRun.BACKOFF.cap(1));
    EffectFixture.drain(effects, EFFECT);

    assertThat(attempts).hasValue(2);
    assertThat(bodies).containsExactly(PROFILE);
    assertThat(seen).containsExactly("GET /profiles/alice");
    InvocationRow row = row(1);
    assertThat(row.status()).isEqualTo(InvocationStatus.TERMINAL);
    assertThat(row.error()).contains("erased").doesNotContain("alice");
    assertThat(effects.status(EFFECT).terminalSkips()).isEqualTo(1);
  }

  @Test
  void aRequestNamingASubjectWithoutASecretKeyFailsBeforeSending() {
    fixture.created("alice");
    Effects effects = effects(lookupThenFail(new AtomicInteger(), new ArrayList<>()), null);
    EffectFixture.drain(effects, EFFECT);

    assertThat(seen).isEmpty();
    assertThat(fixture.effects.listJournal(EFFECT, ORDERS, 1, 0, 10)).isEmpty();
    InvocationRow row = row(1);
    assertThat(row.status()).isEqualTo(InvocationStatus.FAILED);
    assertThat(row.error()).contains("secretKey").contains(EFFECT);
  }

  @Test
  void aBlankSubjectIsRefusedWhenTheRequestIsBuilt() {
    assertThatThrownBy(() -> EffectHttp.Request.of("GET", base + "/p").subject(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .isNotInstanceOf(InvalidRequest.class)
        .hasMessageContaining("subject is blank");
  }
}
