package io.watukuy.internal.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.internal.Json;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RedactorTest {

  @Test
  void credentialLikeQueryValuesAreHiddenAndOthersKept() {
    String url =
        "https://api.test/v1/items?access_token=a&API_KEY=b&client_secret=c&password=d&passwd=e"
            + "&X-Amz-Signature=f&sig=g&auth=h&credentials=i&sessionId=j&code=k&page=2&limit=50"
            + "&codec=mp3";

    assertThat(Redactor.NONE.url(url))
        .isEqualTo(
            "https://api.test/v1/items?access_token=[redacted]&API_KEY=[redacted]"
                + "&client_secret=[redacted]&password=[redacted]&passwd=[redacted]"
                + "&X-Amz-Signature=[redacted]&sig=[redacted]&auth=[redacted]"
                + "&credentials=[redacted]&sessionId=[redacted]&code=[redacted]&page=2&limit=50"
                + "&codec=mp3");
  }

  @Test
  void encodedParameterNamesAreMatchedDecoded() {
    assertThat(Redactor.NONE.url("https://api.test/?api%5Fkey=x&page=1"))
        .isEqualTo("https://api.test/?api%5Fkey=[redacted]&page=1");
  }

  @Test
  void passwordOfTheUserInfoAndTokensInTheFragmentAreHidden() {
    assertThat(Redactor.NONE.url("https://bob:hunter2@api.test:8443/x#access_token=t&state=s"))
        .isEqualTo("https://bob:[redacted]@api.test:8443/x#access_token=[redacted]&state=s");
    assertThat(Redactor.NONE.url("https://api.test:8443/x")).isEqualTo("https://api.test:8443/x");
  }

  @Test
  void secretValuesAreHiddenWhereverTheyAppearAlsoUrlEncoded() {
    Redactor redactor = new Redactor(Set.of("p@ss word", "", "tok"));

    assertThat(redactor.url("https://api.test/p%40ss%20word/x?q=p%40ss+word"))
        .isEqualTo("https://api.test/[redacted]/x?q=[redacted]");
    assertThat(redactor.message("login with p@ss word failed"))
        .isEqualTo("login with [redacted] failed");
    assertThat(redactor.message(null)).isEmpty();
  }

  @Test
  void longerSecretIsReplacedWholeWhenItContainsAShorterOne() {
    Redactor redactor = new Redactor(List.of("abc", "abcdef"));

    assertThat(redactor.message("x abcdef y abc")).isEqualTo("x [redacted] y [redacted]");
  }

  @Test
  void secretHeadersAreHiddenNamesLowerCasedAndLocationRedactedAsAUrl() {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("Authorization", List.of("Bearer x"));
    headers.put("Proxy-Authorization", List.of("Basic y"));
    headers.put("Cookie", List.of("a=1"));
    headers.put("Set-Cookie", List.of("sid=1", "other=2"));
    headers.put("Location", List.of("https://api.test/next?token=z&page=3"));
    headers.put("X-Trace", List.of("t-1"));
    headers.put(":status", List.of("401"));

    assertThat(Redactor.NONE.headers(headers))
        .containsExactly(
            Map.entry("authorization", List.of("[redacted]")),
            Map.entry("cookie", List.of("[redacted]")),
            Map.entry("location", List.of("https://api.test/next?token=[redacted]&page=3")),
            Map.entry("proxy-authorization", List.of("[redacted]")),
            Map.entry("set-cookie", List.of("[redacted]", "[redacted]")),
            Map.entry("x-trace", List.of("t-1")));
  }

  @Test
  void aSecretIsHiddenJsonEscapedAndPercentEncodedInEitherStyle() {
    // A secret with a quote, a backslash, a tilde, a star and a space (issue 16, finding 4).
    String secret = "Tk\"q\\~*z y9";
    Redactor redactor = new Redactor(List.of(secret));

    assertThat(redactor.message("raw " + secret)).isEqualTo("raw [redacted]");
    assertThat(redactor.message("{\"m\":\"Tk\\\"q\\\\~*z y9\"}"))
        .isEqualTo("{\"m\":\"[redacted]\"}");
    assertThat(redactor.message("Tk\\u0022q\\u005C~*z y9")).isEqualTo("[redacted]");
    assertThat(redactor.message("?t=Tk%22q%5C%7E%2Az+y9&x")).isEqualTo("?t=[redacted]&x");
    assertThat(redactor.message("/Tk%22q%5c~%2az%20y9/")).isEqualTo("/[redacted]/");
    assertThat(redactor.message("/Tk%22q%5C~*z%20y9/")).isEqualTo("/[redacted]/");
  }

  @Test
  void aStoredJsonDocumentHidesASecretEscapedTwiceAndStaysJson() throws Exception {
    String secret = "Tk\"q\\~*z y9";
    Redactor redactor = new Redactor(List.of(secret, "98765432"));
    // A response body echoing the secret in JSON, kept as a string of a JSON document: the quote
    // and the backslash are escaped twice in the stored text.
    String body = Json.MAPPER.writeValueAsString(Map.of("echo", secret));
    String stored = Json.MAPPER.writeValueAsString(Map.of("status", 200, "body", body));
    assertThat(stored).contains("Tk\\\\\\\"q\\\\\\\\~*z y9");

    String hidden = redactor.json(stored);

    assertThat(Json.MAPPER.readTree(hidden).get("body").textValue())
        .isEqualTo("{\"echo\":\"[redacted]\"}");
    assertThat(Json.MAPPER.readTree(hidden).get("status").intValue()).isEqualTo(200);
    assertThat(redactor.json("{\"98765432\":98765432,\"n\":[1,\"Tk\\\"q\\\\~*z y9\"]}"))
        .isEqualTo("{\"[redacted]\":\"[redacted]\",\"n\":[1,\"[redacted]\"]}");
  }

  /** {@code text} JSON-escaped {@code depth} times, as string content (no quotes around it). */
  private static String escaped(String text, int depth) throws Exception {
    String form = text;
    for (int i = 0; i < depth; i++) {
      String quoted = Json.MAPPER.writeValueAsString(form);
      form = quoted.substring(1, quoted.length() - 1);
    }
    return form;
  }

  @Test
  void aSecretIsHiddenEscapedThreeAndFourTimesWithAQuoteAndABackslash() throws Exception {
    String secret = "pa\"ss\\12/345";
    Redactor redactor = new Redactor(List.of(secret));
    // Three times: a receiver echoing the raw request body in a JSON string, kept as the body
    // string of a journaled result and written as one column of JSON text.
    assertThat(escaped(secret, 3))
        .isEqualTo("pa" + "\\".repeat(7) + "\"ss" + "\\".repeat(8) + "12/345");

    for (int depth = 3; depth <= 4; depth++) {
      String form = escaped(secret, depth);
      assertThat(redactor.message("a " + form + " b")).isEqualTo("a [redacted] b");
      assertThat(redactor.message("a " + form.replace("/", "\\/") + "\""))
          .isEqualTo("a [redacted]\"");
    }
    // A password ending in an escaped character is taken whole, leaving no backslash behind.
    Redactor trailing = new Redactor(List.of("S3cret-end\""));
    assertThat(trailing.message("<" + escaped("S3cret-end\"", 4) + ">")).isEqualTo("<[redacted]>");
  }

  @Test
  void aStoredJsonDocumentHidesASecretEchoedInsideAStringOfJsonText() throws Exception {
    // docs/effects.md, "The journal": the request body {"password":"pa\"ss12345"} echoed by the
    // receiver as its "data" string, that answer kept as the journaled result's body string.
    String secret = "pa\"ss12345";
    Redactor redactor = new Redactor(List.of(secret));
    String sent = Json.MAPPER.writeValueAsString(Map.of("password", secret));
    String answer = Json.MAPPER.writeValueAsString(Map.of("data", sent));
    String stored = Json.MAPPER.writeValueAsString(Map.of("status", 200, "body", answer));
    assertThat(stored).contains(escaped(secret, 3));

    String hidden = redactor.json(stored);

    String body = Json.MAPPER.readTree(hidden).get("body").textValue();
    String data = Json.MAPPER.readTree(body).get("data").textValue();
    assertThat(Json.MAPPER.readTree(data).get("password").textValue()).isEqualTo("[redacted]");
    assertThat(hidden).doesNotContain("ss12345");
  }

  @Test
  void aStoredJsonDocumentWithoutASecretIsKeptAsWrittenAndTextIsRedactedAsText() {
    Redactor redactor = new Redactor(List.of("S3cret-value"));

    assertThat(redactor.json("{ \"a\": 1.50, \"b\": [\"x\"] }"))
        .isEqualTo("{ \"a\": 1.50, \"b\": [\"x\"] }");
    assertThat(redactor.json("not json S3cret-value")).isEqualTo("not json [redacted]");
    assertThat(Redactor.NONE.json("\"S3cret-value\"")).isEqualTo("\"S3cret-value\"");
  }

  @Test
  void basicCredentialsAreHiddenInBase64() {
    Redactor redactor = new Redactor(List.of("api-user", "pa ss/w?rd>>"));
    String pair = Base64.getEncoder().encodeToString("api-user:pa ss/w?rd>>".getBytes(UTF_8));
    String urlSafe =
        Base64.getUrlEncoder().withoutPadding().encodeToString("pa ss/w?rd>>".getBytes(UTF_8));

    assertThat(redactor.message("Authorization: Basic " + pair))
        .isEqualTo("Authorization: Basic [redacted]");
    assertThat(redactor.message("t=" + urlSafe + ";")).isEqualTo("t=[redacted];");
  }

  @Test
  void base64WithItsSlashesJsonEscapedIsHiddenInText() {
    // A JSON writer that escapes '/' echoes the Basic header's pair with each '/' as '\/'.
    Redactor redactor = new Redactor(List.of("api-user", "tok-???>>>~~~"));
    String pair = Base64.getEncoder().encodeToString("api-user:tok-???>>>~~~".getBytes(UTF_8));
    String alone =
        Base64.getEncoder().withoutPadding().encodeToString("tok-???>>>~~~".getBytes(UTF_8));
    assertThat(pair).contains("/");
    assertThat(alone).contains("/");
    String echoed = "{\"authorization\":\"Basic " + pair.replace("/", "\\/") + "\"}";

    assertThat(redactor.message(echoed)).isEqualTo("{\"authorization\":\"Basic [redacted]\"}");
    assertThat(redactor.message("t=" + alone.replace("/", "\\/") + ";")).isEqualTo("t=[redacted];");
  }

  @Test
  void aStackTraceIsRedactedCausesIncluded() {
    Redactor redactor = new Redactor(List.of("S3cret-value"));
    RuntimeException e =
        new RuntimeException("outer", new IllegalStateException("inner S3cret-value"));

    assertThat(redactor.stackTrace(e)).contains("inner [redacted]").doesNotContain("S3cret-value");
  }

  @Test
  void ofReusesTheLastRedactorForTheSameSecrets() {
    Redactor first = Redactor.of(List.of("same-S3cret"));

    assertThat(Redactor.of(Set.of("same-S3cret"))).isSameAs(first);
    assertThat(Redactor.of(List.of("other-S3cret")).message("other-S3cret same-S3cret"))
        .isEqualTo("[redacted] same-S3cret");
  }

  @Test
  void aOneLetterPasswordLeavesWordsAndMarkersReadableEvenRedactedTwice() {
    // Basic auth with password "e" on a URL that answered 500 (docs/operations.md, "Secrets").
    Redactor redactor = new Redactor(List.of("u", "e"));
    String message = "watukuy: new store sqlite: poller short2: HTTP 500 with password e";

    String once = redactor.message(message);
    assertThat(once)
        .isEqualTo("watukuy: new store sqlite: poller short2: HTTP 500 with password [redacted]");
    assertThat(redactor.message(once)).isEqualTo(once);
  }

  @Test
  void secretsThatAreLettersOfTheMarkerNeverGarbleIt() {
    Redactor redactor = new Redactor(List.of("e", "d"));

    String twice = redactor.message(redactor.message("poller d failed: e"));
    assertThat(twice).isEqualTo("poller [redacted] failed: [redacted]").doesNotContain("[r[");
  }

  @Test
  void aLongSecretInsideTheMarkerWordsIsStillRedactedOnceAndStable() {
    Redactor redactor = new Redactor(List.of("redacted", "dacted]x"));

    String once = redactor.message("a redacted b");
    assertThat(once).isEqualTo("a [redacted] b");
    assertThat(redactor.message(once)).isEqualTo(once);
  }

  @Test
  void aLongSecretIsStillHiddenInsideWordsAndInEveryEncoding() {
    String secret = "Tk\"q z9";
    Redactor redactor = new Redactor(List.of("e", secret));
    String base64 = Base64.getEncoder().encodeToString(secret.getBytes(UTF_8));

    assertThat(redactor.message("xTk\"q z9y")).isEqualTo("x[redacted]y");
    assertThat(redactor.message("{\"m\":\"Tk\\\"q z9\"}")).isEqualTo("{\"m\":\"[redacted]\"}");
    assertThat(redactor.message("?t=Tk%22q+z9&x")).isEqualTo("?t=[redacted]&x");
    assertThat(redactor.message("b=" + base64)).isEqualTo("b=[redacted]");
  }

  @Test
  void aShortSecretIsHiddenAsAWholeTokenInItsEncodings() {
    Redactor redactor = new Redactor(List.of("a b"));

    assertThat(redactor.message("q=a+b&r=xa%20by")).isEqualTo("q=[redacted]&r=xa%20by");
  }

  @Test
  void replacedNamesEachSecretInOnePass() {
    Redactor redactor = new Redactor(List.of("A", "long-S3cret"));

    assertThat(redactor.replaced("A and long-S3cret", v -> "${" + v + "}"))
        .isEqualTo("${A} and ${long-S3cret}");
  }
}
