package io.watukuy.effects;

import static io.watukuy.effects.EffectFixture.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.SealingKeys;
import io.watukuy.effects.EffectFixture.Order;
import io.watukuy.effects.internal.EffectRun;
import io.watukuy.effects.internal.SubjectSeals;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.JournalEntry;
import io.watukuy.store.memory.MemoryStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * docs/effects.md, "Sealed documents" and "Terminal failures": seal and reveal round-trip, erasure
 * reaches the journal, a reveal after erasure completes the position as terminal, and a document
 * that is not the declared type is an ordinary failure naming the type.
 */
class SealedDocumentsTest {
  /** A fixed secretKey (32 zero bytes), sealing with a seeded random. */
  private static final SealingKeys SECRET_KEY =
      SealingKeys.builder()
          .key("secretKey", "k1", Base64.getEncoder().encodeToString(new byte[32]))
          .random(new Random(1))
          .build();

  record Profile(String email) {}

  record Address(String street) {}

  private static final String EFFECT = "Notify";

  private final EffectFixture<MemoryStore> fixture = EffectFixture.memory();

  /** An engine running {@link #EFFECT} with {@code arm} on created orders, keyed by customer. */
  private Effects effects(Arm<Order> arm, @Nullable SealingKeys secretKey) {
    return fixture.createdByCustomer(EFFECT, arm, secretKey);
  }

  private static void drain(Effects effects) {
    EffectFixture.drain(effects, EFFECT);
  }

  private InvocationRow row(long position) {
    return fixture.row(EFFECT, position).orElseThrow();
  }

  @Test
  void aSealedDocumentRevealsAsItWasAndItsTextHoldsNoPlaintext() {
    List<Profile> revealed = new ArrayList<>();
    AtomicReference<String> sealed = new AtomicReference<>();
    fixture.created("alice");
    Effects effects =
        effects(
            (ctx, e) -> {
              sealed.set(ctx.seal("alice", new Profile("alice@example.com")));
              revealed.add(ctx.reveal(sealed.get(), Profile.class));
            },
            SECRET_KEY);
    drain(effects);

    assertThat(revealed).containsExactly(new Profile("alice@example.com"));
    assertThat(sealed.get()).startsWith("v1:").doesNotContain("alice@example.com");
    assertThat(row(1).status()).isEqualTo(InvocationStatus.DONE);
  }

  @Test
  void aJournalRowNamingASubjectIsSealedAndUnreadableAfterErasure() {
    AtomicInteger lookups = new AtomicInteger();
    AtomicInteger attempt = new AtomicInteger();
    fixture.created("alice");
    Effects effects =
        effects(
            (ctx, e) -> {
              attempt.incrementAndGet();
              ctx.call(
                  "lookup",
                  e.data().customer(),
                  Profile.class,
                  "alice",
                  () -> {
                    lookups.incrementAndGet();
                    return new Profile("alice@example.com");
                  });
              throw new IllegalStateException("the mail server is down");
            },
            SECRET_KEY);
    drain(effects);

    JournalEntry row = fixture.effects.listJournal(EFFECT, ORDERS, 1, 0, 10).get(0);
    assertThat(row.subject()).isEqualTo("alice");
    assertThat(row.result()).startsWith("v1:").doesNotContain("alice@example.com");
    assertThat(row(1).status()).isEqualTo(InvocationStatus.FAILED);

    assertThat(effects.erase("alice")).isTrue();
    fixture.clock.advance(EffectRun.BACKOFF.cap(1));
    drain(effects);

    // The replay reads the row back; without the key it can never be revealed again.
    assertThat(attempt).hasValue(2);
    assertThat(lookups).hasValue(1);
    assertThat(row(1).status()).isEqualTo(InvocationStatus.TERMINAL);
    assertThat(row(1).error()).contains("erased").doesNotContain("alice");
  }

  @Test
  void aRevealAfterErasureIsTerminalEvenWhenTheArmCatchesIt() {
    AtomicReference<String> sealed = new AtomicReference<>();
    fixture.created("alice");
    Effects effects =
        effects(
            (ctx, e) -> {
              if (ctx.position() == 1) {
                sealed.set(ctx.seal("alice", new Profile("alice@example.com")));
                return;
              }
              try {
                ctx.reveal(sealed.get(), Profile.class);
              } catch (TerminalFailure swallowed) {
                // the context remembers it
              }
            },
            SECRET_KEY);
    assertThat(effects.erase("alice")).isFalse(); // nothing sealed yet
    drain(effects);
    assertThat(effects.erase("alice")).isTrue();
    fixture.created("bob");
    drain(effects);

    InvocationRow second = row(2);
    assertThat(second.status()).isEqualTo(InvocationStatus.TERMINAL);
    assertThat(second.attempt()).isEqualTo(1);
    EffectStatus status = effects.status(EFFECT);
    assertThat(status.terminalSkips()).isEqualTo(1);
    assertThat(status.lastTerminalError()).contains("erased");
    assertThat(status.sources().get(0).position()).isEqualTo(2);
  }

  @Test
  void aDocumentThatIsNotTheDeclaredTypeIsARetriedFailureNamingTheType() {
    fixture.created("alice");
    Effects effects =
        effects(
            (ctx, e) ->
                ctx.reveal(ctx.seal("alice", new Profile("alice@example.com")), Address.class),
            SECRET_KEY);
    drain(effects);

    InvocationRow row = row(1);
    assertThat(row.status()).isEqualTo(InvocationStatus.FAILED);
    assertThat(row.error())
        .contains(Address.class.getName())
        .contains(Profile.class.getName())
        .doesNotContain("alice@example.com");
    assertThat(Duration.between(row.updatedAt(), row.retryAt())).isEqualTo(Duration.ofMillis(200));
    assertThat(effects.status(EFFECT).terminalSkips()).isZero();

    fixture.clock.advance(Duration.ofMillis(200));
    drain(effects);
    assertThat(row(1).status()).isEqualTo(InvocationStatus.FAILED);
    assertThat(row(1).attempt()).isEqualTo(2);
  }

  record Counter(int count) {}

  @Test
  void aDocumentThatNoLongerReadsAsItsTypeNamesThePathNeverAValue() {
    // Sealed as a Counter whose field no longer reads (the class changed since, say).
    String sealed =
        new SubjectSeals(fixture.effects, fixture.clock, SECRET_KEY, new Random(3))
            .seal(EFFECT, "alice", Counter.class.getName(), "{\"count\":\"alice@example.com\"}");
    fixture.created("alice");
    Effects effects = effects((ctx, e) -> ctx.reveal(sealed, Counter.class), SECRET_KEY);
    drain(effects);

    InvocationRow row = row(1);
    assertThat(row.status()).isEqualTo(InvocationStatus.FAILED);
    assertThat(row.error())
        .contains(Counter.class.getName())
        .contains("count")
        .doesNotContain("alice@example.com");
  }

  @Test
  void sealingWithoutASecretKeyFailsNamingIt() {
    fixture.created("alice");
    Effects effects = effects((ctx, e) -> ctx.seal("alice", new Profile("a@b")), null);
    drain(effects);

    assertThat(row(1).status()).isEqualTo(InvocationStatus.FAILED);
    assertThat(row(1).error()).contains("secretKey").contains(EFFECT);
  }

  @Test
  void aCallWhoseResultCannotBeSealedNeverRuns() {
    AtomicInteger lookups = new AtomicInteger();
    fixture.created("alice");
    fixture.created("bob");
    Effects effects =
        effects(
            (ctx, e) ->
                ctx.call(
                    "lookup",
                    e.data().customer(),
                    Profile.class,
                    ctx.position() == 1 ? "alice" : " ",
                    () -> {
                      lookups.incrementAndGet();
                      return new Profile("a@b");
                    }),
            null);
    drain(effects);

    // Had it run, its result could not be recorded, and every retry would make the call again.
    assertThat(lookups).hasValue(0);
    assertThat(row(1).error()).contains("secretKey");
    assertThat(row(2).error()).contains("subject is blank");
    assertThat(fixture.effects.listJournal(EFFECT, ORDERS, 1, 0, 10)).isEmpty();
  }
}
