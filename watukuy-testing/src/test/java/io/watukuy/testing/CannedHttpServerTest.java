package io.watukuy.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The canned server answers with its headers byte for byte, whatever the client sends. */
class CannedHttpServerTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(WAIT).build();

  @Test
  void everyRequestGetsTheStatusAndHeadersAsGivenADateIncluded() throws Exception {
    try (CannedHttpServer server =
        CannedHttpServer.start(429, Map.of("Date", "Tue, 1 Dec 2026 10:00:00 GMT"))) {
      HttpResponse<String> res =
          client.send(get(server.url("/orders?x=1")), HttpResponse.BodyHandlers.ofString());

      assertThat(res.statusCode()).isEqualTo(429);
      assertThat(res.headers().allValues("date")).containsExactly("Tue, 1 Dec 2026 10:00:00 GMT");
      assertThat(res.body()).isEmpty();
      assertThat(server.requests()).isEqualTo(1);
    }
  }

  @Test
  void aRequestBodyIsReadSoTheAnswerArrivesWhole() throws Exception {
    try (CannedHttpServer server = CannedHttpServer.start(503, Map.of("Retry-After", "120"))) {
      byte[] body = new byte[1_000_000];
      HttpRequest post =
          HttpRequest.newBuilder(URI.create(server.url("/orders")))
              .timeout(WAIT)
              .POST(HttpRequest.BodyPublishers.ofByteArray(body))
              .build();

      HttpResponse<Void> res = client.send(post, HttpResponse.BodyHandlers.discarding());

      assertThat(res.statusCode()).isEqualTo(503);
      assertThat(res.headers().firstValue("retry-after")).contains("120");
    }
  }

  @Test
  void aSilentClientDoesNotHoldUpTheNextOneAndCloseCutsItOff() throws Exception {
    CannedHttpServer server = CannedHttpServer.start(200, Map.of());
    int port = URI.create(server.url("/")).getPort();
    try (Socket silent = new Socket(InetAddress.getLoopbackAddress(), port)) {
      assertThat(
              client
                  .send(get(server.url("/")), HttpResponse.BodyHandlers.discarding())
                  .statusCode())
          .isEqualTo(200);

      server.close();

      silent.setSoTimeout((int) WAIT.toMillis());
      InputStream in = silent.getInputStream();
      assertThat(in.read()).isEqualTo(-1); // closed by the server, not answered
    }
  }

  @Test
  void bareLineFeedsEndTheHeadToo() throws Exception {
    try (CannedHttpServer server = CannedHttpServer.start(204, Map.of());
        Socket raw =
            new Socket(InetAddress.getLoopbackAddress(), URI.create(server.url("/")).getPort())) {
      raw.setSoTimeout((int) WAIT.toMillis());
      raw.getOutputStream()
          .write("GET / HTTP/1.1\nHost: x\n\n".getBytes(StandardCharsets.US_ASCII));

      String answer = new String(raw.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);

      assertThat(answer).startsWith("HTTP/1.1 204 ");
    }
  }

  @Test
  void aHeaderThatWouldInjectLinesIsRefused() {
    assertThatThrownBy(() -> CannedHttpServer.start(200, Map.of("X", "a\r\nContent-Length: 5")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("CR or LF");
  }

  private static HttpRequest get(String url) {
    return HttpRequest.newBuilder(URI.create(url)).timeout(WAIT).build();
  }
}
