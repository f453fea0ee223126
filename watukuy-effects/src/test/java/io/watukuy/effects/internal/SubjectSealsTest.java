package io.watukuy.effects.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.SealingKeys;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.SubjectKey;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.VirtualClock;
import java.util.Base64;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * docs/effects.md, "Sealed documents": the store holds a subject's data key only wrapped and a
 * document only sealed; erasure makes every document sealed under the key unreadable; a sealed text
 * relabelled or altered fails authentication. Keys and nonces come from a seeded random.
 */
class SubjectSealsTest {
  private static final long SEED = 7;
  private static final String DOCUMENT = "{\"email\":\"alice@example.com\"}";

  private final EffectStore store = new MemoryStore().effects().orElseThrow();
  private final VirtualClock clock = new VirtualClock();
  private final SealingKeys secretKey =
      SealingKeys.builder()
          .key("secretKey", "k1", Base64.getEncoder().encodeToString(new byte[32]))
          .random(new Random(1))
          .build();
  private final SubjectSeals seals = new SubjectSeals(store, clock, secretKey, new Random(SEED));

  /** The data key the seeded random makes first: what must never be stored or shown in clear. */
  private static byte[] firstDataKey() {
    byte[] key = new byte[32];
    new Random(SEED).nextBytes(key);
    return key;
  }

  @Test
  void aSealedDocumentOpensAsTheTypeAndJsonItWasSealedWith() {
    String sealed = seals.seal("Notify", "alice", "x.Profile", DOCUMENT);

    SubjectKey key = store.loadSubjectKey("alice").orElseThrow();
    assertThat(sealed).startsWith("v1:" + key.keyId() + ":");
    assertThat(SealingKeys.keyId(sealed)).isEqualTo(key.keyId());
    assertThat(seals.open("Notify", sealed, "x.Profile"))
        .isEqualTo(new SubjectSeals.Opened("x.Profile", DOCUMENT));
  }

  @Test
  void theStoreHoldsNeitherTheDataKeyNorTheDocumentInClear() {
    String sealed = seals.seal("Notify", "alice", "x.Profile", DOCUMENT);

    byte[] dataKey = firstDataKey();
    SubjectKey row = store.loadSubjectKey("alice").orElseThrow();
    // The row keeps the key wrapped under secretKey, with the subject as its context.
    assertThat(Base64.getDecoder().decode(secretKey.open("alice", row.wrappedKey())))
        .isEqualTo(dataKey);
    for (String form :
        new String[] {
          Base64.getEncoder().encodeToString(dataKey),
          Base64.getUrlEncoder().withoutPadding().encodeToString(dataKey)
        }) {
      assertThat(row.wrappedKey()).doesNotContain(form);
      assertThat(row.toString()).doesNotContain(form);
      assertThat(sealed).doesNotContain(form);
    }
    assertThat(sealed).doesNotContain("alice@example.com");
    assertThat(seals.open("Notify", sealed, "x.Profile").toString())
        .doesNotContain("alice@example.com");
  }

  @Test
  void afterErasureNoSealedCopyOpensAndANewSealMakesANewKey() {
    String sealed = seals.seal("Notify", "alice", "x.Profile", DOCUMENT);
    String oldKeyId = SealingKeys.keyId(sealed);

    assertThat(seals.erase("alice")).isTrue();
    assertThat(store.loadSubjectKey("alice")).isEmpty();
    assertThatThrownBy(() -> seals.open("Notify", sealed, "x.Profile"))
        .isInstanceOf(SubjectSeals.SubjectErased.class)
        .hasMessageContaining("erased")
        .hasMessageNotContaining("alice");

    String again = seals.seal("Notify", "alice", "x.Profile", DOCUMENT);
    assertThat(SealingKeys.keyId(again)).isNotEqualTo(oldKeyId);
    assertThat(seals.open("Notify", again, "x.Profile").json()).isEqualTo(DOCUMENT);
    // The new key does not bring the old copies back.
    assertThatThrownBy(() -> seals.open("Notify", sealed, "x.Profile"))
        .isInstanceOf(SubjectSeals.SubjectErased.class);
  }

  @Test
  void aDocumentRelabelledWithAnotherSubjectOrAlteredFailsAuthentication() {
    String alice = seals.seal("Notify", "alice", "x.Profile", DOCUMENT);
    String bob = seals.seal("Notify", "bob", "x.Profile", DOCUMENT);
    String[] a = alice.split(":", 4);
    String[] b = bob.split(":", 4);
    // bob's key id and subject, alice's ciphertext: bob's key opens nothing alice sealed.
    String relabelled = String.join(":", b[0], b[1], b[2], a[3]);
    char last = a[3].charAt(a[3].length() - 2);
    String altered =
        String.join(
            ":",
            a[0],
            a[1],
            a[2],
            a[3].substring(0, a[3].length() - 2)
                + (last == 'A' ? 'B' : 'A')
                + a[3].charAt(a[3].length() - 1));

    for (String bad : new String[] {relabelled, altered})
      assertThatThrownBy(() -> seals.open("Notify", bad, "x.Profile"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("fails authentication")
          .hasMessageNotContaining("alice@example.com");
    assertThatThrownBy(() -> seals.open("Notify", "not sealed", "x.Profile"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("x.Profile")
        .hasMessageContaining("not a sealed document");
  }
}
