package io.watukuy.internal.http;

import static org.assertj.core.api.Assertions.assertThat;

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
}
