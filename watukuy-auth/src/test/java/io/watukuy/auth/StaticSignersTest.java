package io.watukuy.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.OutgoingRequest;
import io.watukuy.testing.VirtualClock;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Bearer, Basic, API key and HMAC signers: what they add to a request, checked against the RFCs.
 */
class StaticSignersTest {

  private static OutgoingRequest get(String url) {
    return new OutgoingRequest("GET", URI.create(url), Map.of(), new byte[0]);
  }

  @Test
  void basicEncodesUserColonPasswordAsRfc7617Section2Shows() {
    OutgoingRequest r = get("https://api.example.com/orders");
    BasicSigner signer = new BasicSigner("Aladdin", "open sesame");

    signer.sign(r);

    // RFC 7617, section 2: Aladdin / open sesame
    assertThat(r.addedHeaders())
        .containsEntry("Authorization", "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
    assertThat(signer.secretValues()).contains("open sesame");
  }

  @Test
  void bearerSendsTheTokenAndHidesIt() {
    OutgoingRequest r = get("https://api.example.com/orders");
    BearerSigner signer = new BearerSigner("mF_9.B5f-4.1JqM");

    signer.sign(r);

    // RFC 6750, section 2.1
    assertThat(r.addedHeaders()).containsEntry("Authorization", "Bearer mF_9.B5f-4.1JqM");
    assertThat(signer.secretValues()).containsExactly("mF_9.B5f-4.1JqM");
  }

  @Test
  void anApiKeyGoesInAHeaderOrIsAppendedToTheQueryEncoded() {
    OutgoingRequest header = get("https://api.example.com/orders?a=1");
    OutgoingRequest query = get("https://api.example.com/orders?a=1#frag");

    ApiKeySigner.header("X-Api-Key", "k1").sign(header);
    ApiKeySigner.query("key", "k 1&2").sign(query);

    assertThat(header.addedHeaders()).containsEntry("X-Api-Key", "k1");
    assertThat(header.uri().getRawQuery()).isEqualTo("a=1");
    assertThat(query.uri().toString())
        .isEqualTo("https://api.example.com/orders?a=1&key=k%201%262#frag");
  }

  @Test
  void aKeyWithALineBreakIsRefusedWithoutQuotingIt() {
    assertThatThrownBy(() -> ApiKeySigner.header("X-Api-Key", "abc\r\nX-Evil: 1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("key has a line break");
  }

  @Test
  void hmacSignsTheCanonicalStringOfMethodPathQueryTimestampAndBodyDigest() {
    VirtualClock clock = new VirtualClock(); // 2024-01-01T00:00:00Z = 1704067200
    HmacSigner.Builder b =
        HmacSigner.builder()
            .header("X-Signature")
            .template("{{method}}\n{{path}}\n{{query}}\n{{timestamp}}\n{{bodySha256}}")
            .secret("hm4c")
            .timestampHeader("X-Timestamp")
            .time(clock);
    OutgoingRequest hex = post();
    OutgoingRequest base64 = post();

    b.build().sign(hex);
    b.encoding(HmacSigner.Encoding.BASE64).prefix("v1=").build().sign(base64);

    // B=$(printf '{"q":"x"}' | sha256sum | cut -d' ' -f1)
    // printf "POST\n/search\na=1\n1704067200\n$B" | openssl dgst -sha256 -hmac hm4c [-binary |
    // base64]
    assertThat(hex.addedHeaders())
        .containsEntry("X-Timestamp", "1704067200")
        .containsEntry(
            "X-Signature", "7912a5834836f73ce2c7776d8d4ea11ad8d96f6475cb532179ad0c77d953acc1");
    assertThat(base64.addedHeaders())
        .containsEntry("X-Signature", "v1=eRKlg0g29zzix3dtjU6hGtjZb2R1y1Mhea0Md9lTrME=");
  }

  private static OutgoingRequest post() {
    return new OutgoingRequest(
        "POST",
        URI.create("https://api.example.com/search?a=1"),
        Map.of("Content-Type", "application/json"),
        "{\"q\":\"x\"}".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void hmacRefusesAnUnknownVariableAndATimestampTheServerCouldNotSee() {
    HmacSigner.Builder b = HmacSigner.builder().header("X-Sig").secret("s");

    assertThatThrownBy(() -> b.template("{{method}} {{host}}").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown variable {{host}}");
    assertThatThrownBy(() -> b.template("{{method}} {{timestamp}}").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no timestampHeader");
    assertThatThrownBy(() -> b.template("{{method}}").algorithm("HmacNope").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("HmacNope");
  }
}
