package io.watukuy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link SealingKeys}: AES-256-GCM sealing with key ids (docs/config.md, "secretKey"): round trip,
 * rotation, and every way a stored value can fail to open.
 */
class SealingKeysTest {

  // Two fixed test keys: 32 bytes each, base64. Not secrets of anything.
  private static final String OLD = key(1);
  private static final String NEW = key(2);

  private static String key(int fill) {
    byte[] k = new byte[32];
    java.util.Arrays.fill(k, (byte) fill);
    return Base64.getEncoder().encodeToString(k);
  }

  private static SealingKeys keys(String... idKeyPairs) {
    SealingKeys.Builder b = SealingKeys.builder().random(new Random(42));
    for (int i = 0; i < idKeyPairs.length; i += 2)
      b.key("secretKey[" + (i / 2 + 1) + "].key", idKeyPairs[i], idKeyPairs[i + 1]);
    return b.build();
  }

  @Test
  void roundTripUnderTheNewestKeyWithAFreshNoncePerSeal() {
    SealingKeys k = keys("k2", NEW, "k1", OLD);

    String a = k.seal("crm", "refresh-123");
    String b = k.seal("crm", "refresh-123");

    assertThat(a).startsWith("v1:k2:").doesNotContain("refresh-123");
    assertThat(b).as("a new nonce each time").isNotEqualTo(a);
    assertThat(k.open("crm", a)).isEqualTo("refresh-123");
    assertThat(k.open("crm", b)).isEqualTo("refresh-123");
    assertThat(k.toString()).isEqualTo("SealingKeys[k2, k1]").doesNotContain(NEW);
  }

  @Test
  void rotationReadsValuesSealedUnderAnOlderKeyAndWritesUnderTheNew() {
    String underOld = keys("k1", OLD).seal("crm", "refresh-old");

    SealingKeys rotated = keys("k2", NEW, "k1", OLD);

    assertThat(rotated.open("crm", underOld)).isEqualTo("refresh-old");
    assertThat(rotated.seal("crm", "refresh-new")).startsWith("v1:k2:");
    assertThat(rotated.newestKeyId()).isEqualTo("k2");
  }

  @Test
  void aValueUnderAKeyIdNoLongerListedNamesThatId() {
    String underOld = keys("k1", OLD).seal("crm", "refresh-old");

    assertThatThrownBy(() -> keys("k2", NEW).open("crm", underOld))
        .isInstanceOf(SealingKeys.SealedValueException.class)
        .hasMessageContaining("key id 'k1'")
        .hasMessageContaining("it has k2");
  }

  @Test
  void anAlteredCiphertextOrAnotherNameFailsAuthentication() {
    SealingKeys k = keys("k1", OLD);
    String sealed = k.seal("crm", "refresh-123");
    char last = sealed.charAt(sealed.length() - 5);
    String altered =
        sealed.substring(0, sealed.length() - 5)
            + (last == 'A' ? 'B' : 'A')
            + sealed.substring(sealed.length() - 4);

    assertThatThrownBy(() -> k.open("crm", altered))
        .isInstanceOf(SealingKeys.SealedValueException.class)
        .hasMessageContaining("fails authentication");
    assertThatThrownBy(() -> k.open("billing", sealed))
        .as("the name is authenticated: a row moved to another credential does not open")
        .isInstanceOf(SealingKeys.SealedValueException.class)
        .hasMessageContaining("billing: the stored sealed value fails authentication");
  }

  @Test
  void aRelabelledKeyIdFailsEvenWhenTheSameKeyIsListedUnderBothIds() {
    SealingKeys k = keys("a", OLD, "b", OLD);
    String sealed = k.seal("crm", "refresh-123");

    assertThatThrownBy(() -> k.open("crm", sealed.replace("v1:a:", "v1:b:")))
        .isInstanceOf(SealingKeys.SealedValueException.class);
    assertThatThrownBy(() -> k.open("crm", "refresh-123"))
        .hasMessageContaining("not a sealed value");
  }

  @Test
  void aKeyOfTheWrongLengthIsAConfigErrorThatNeverEchoesTheValue() {
    String short16 = Base64.getEncoder().encodeToString(new byte[16]);

    assertThatThrownBy(() -> SealingKeys.of("secretKey", short16))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("secretKey must be 32 bytes in base64 (AES-256), but was 16 bytes")
        .hasMessageNotContaining(short16);
    assertThatThrownBy(() -> SealingKeys.of("secretKey", "not base64 at all!"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("is not base64")
        .hasMessageNotContaining("not base64 at all!");
    assertThatThrownBy(() -> keys("k1", OLD, "k1", NEW))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("key id 'k1' is listed twice");
    assertThat(SealingKeys.of("secretKey", OLD).newestKeyId()).isEqualTo("default");
  }

  @Test
  void keyIdIsThePartAfterV1OfTheSealedFormAndUnknownOtherwise() {
    SealingKeys k = keys("k2", NEW);
    assertThat(SealingKeys.keyId(k.seal("auth crm", "token"))).isEqualTo("k2");
    assertThat(SealingKeys.keyId("v1:k2:AAAA")).isEqualTo("k2");
    assertThat(SealingKeys.keyId("v1:default:a:b")).isEqualTo("default");
    assertThat(SealingKeys.keyId("v1::AAAA")).isNull();
    assertThat(SealingKeys.keyId("v2:k2:AAAA")).isNull();
    assertThat(SealingKeys.keyId("plain-text")).isNull();
  }
}
