package io.watukuy.sink.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The Standard Webhooks signature: the published vector, and the secret's format and redaction. */
class SigningSecretTest {
  /**
   * The example the Standard Webhooks reference libraries test their signing with
   * (github.com/standard-webhooks/standard-webhooks, libraries/php/tests/WebhookTest.php,
   * testSignFunctionWorks; the same values in the other libraries' tests).
   */
  static final String VECTOR_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

  static final String VECTOR_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
  static final long VECTOR_TIMESTAMP = 1614265330L;
  static final String VECTOR_BODY = "{\"test\": 2432232314}";
  static final String VECTOR_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

  @Test
  void theSinksSignatureIsTheReferenceLibrariesOnTheirExample() {
    String signature =
        SigningSecret.parse(VECTOR_SECRET)
            .sign(VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_BODY.getBytes(StandardCharsets.UTF_8));

    assertThat(signature).isEqualTo(VECTOR_SIGNATURE);
  }

  @Test
  void theTestsOwnVerifierAcceptsTheExampleAndRefusesATamperedBody() throws Exception {
    StandardWebhooksVerifier verifier = new StandardWebhooksVerifier(VECTOR_SECRET);
    byte[] body = VECTOR_BODY.getBytes(StandardCharsets.UTF_8);

    assertThat(verifier.verify(VECTOR_ID, "1614265330", "v1,bm9wZQ== " + VECTOR_SIGNATURE, body))
        .isTrue();
    assertThat(
            verifier.verify(
                VECTOR_ID,
                "1614265330",
                VECTOR_SIGNATURE,
                "{\"test\": 2432232315}".getBytes(StandardCharsets.UTF_8)))
        .isFalse();
    assertThat(verifier.verify(VECTOR_ID, "1614265331", VECTOR_SIGNATURE, body)).isFalse();
  }

  @Test
  void aSecretWithoutThePrefixIsTheSameSecret() {
    byte[] body = VECTOR_BODY.getBytes(StandardCharsets.UTF_8);
    assertThat(
            SigningSecret.parse("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
                .sign(VECTOR_ID, 1614265330L, body))
        .isEqualTo(VECTOR_SIGNATURE);
  }

  @Test
  void aSecretThatIsNotBase64OrTooShortIsRefusedWithoutQuotingIt() {
    assertThatThrownBy(() -> SigningSecret.parse("whsec_not*base64*at*all"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("not*base64")
        .hasMessageContaining("whsec_ followed by Base64");
    assertThatThrownBy(() -> SigningSecret.parse("whsec_c2hvcnQ="))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a secret of 5 bytes")
        .hasMessageNotContaining("c2hvcnQ");
  }

  @Test
  void theSecretPrintsRedacted() {
    assertThat(SigningSecret.parse(VECTOR_SECRET).toString())
        .isEqualTo("whsec_***")
        .doesNotContain("MfKQ9r8");
  }
}
