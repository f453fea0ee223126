package io.watukuy.internal.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.watukuy.HttpResult;
import io.watukuy.HttpStatusException;
import io.watukuy.RequestOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Content codings against a real server: what is asked for, what is decoded, and the size bound
 * counted on the decoded bytes (docs/config.md, "response.format").
 */
class CompressedBodiesTest {

  private static final HttpClient CLIENT = HttpClients.newDefault();
  private static final String PAGE = "[{\"id\":\"o-1\",\"note\":\"größer\"},{\"id\":\"o-2\"}]";

  private final TestServer server = TestServer.start();
  private final FakeHttpScope scope = new FakeHttpScope();
  private final DefaultHttp http = new DefaultHttp(CLIENT, scope);

  @AfterEach
  void stopServer() {
    server.close();
  }

  @Test
  void asksForGzipAndDeflateUnlessTheOptionsSayOtherwise() {
    server.reply(200, "[]").reply(200, "[]");

    http.get(server.url("/a"));
    http.get(server.url("/b"), RequestOptions.builder().header("Accept-Encoding", "gzip").build());

    assertThat(server.request(0).header("accept-encoding")).isEqualTo("gzip, deflate");
    assertThat(server.request(1).header("accept-encoding")).isEqualTo("gzip");
  }

  @Test
  void aGzipBodyIsDecodedAndLosesItsCodingHeaders() throws IOException {
    server.replyBytes(200, gzip(utf8(PAGE)), "Content-Encoding", "gzip");

    HttpResult r = http.get(server.url("/orders"));

    assertThat(r.body()).isEqualTo(PAGE);
    assertThat(r.json().get(0).get("note").textValue()).isEqualTo("größer");
    assertThat(r.headers()).doesNotContainKeys("content-encoding", "content-length");
  }

  @Test
  void deflateIsDecodedWhetherZlibWrappedOrRaw() throws IOException {
    server
        .replyBytes(200, deflate(utf8(PAGE), false), "Content-Encoding", "deflate")
        .replyBytes(200, deflate(utf8(PAGE), true), "Content-Encoding", "Deflate");

    assertThat(http.get(server.url("/zlib")).body()).isEqualTo(PAGE);
    assertThat(http.get(server.url("/raw")).body()).isEqualTo(PAGE);
  }

  @Test
  void aGzipBombStopsAtTheBoundWithoutInflatingTheRest() throws IOException {
    scope.maxBodySize = 1024 * 1024;
    byte[] bomb = gzip(new byte[200 * 1024 * 1024]); // 200 MiB of zeros, about 200 KB sent
    assertThat(bomb.length).isLessThan(1024 * 1024);
    server.replyBytes(200, bomb, "Content-Encoding", "gzip");

    UncheckedIOException e =
        catchThrowableOfType(UncheckedIOException.class, () -> http.get(server.url("/bomb")));

    assertThat(e)
        .hasMessageStartingWith(
            "GET "
                + server.url("/bomb")
                + " failed: the response body passed request.maxBodySize 1048576 bytes once"
                + " decompressed (Content-Encoding gzip; inflated ");
    Matcher inflated = Pattern.compile("inflated (\\d+) bytes").matcher(e.getMessage());
    assertThat(inflated.find()).isTrue();
    // One chunk of 64 KiB beyond the bound at most: the 200 MiB were never allocated.
    assertThat(Long.parseLong(inflated.group(1))).isLessThanOrEqualTo(1024 * 1024 + 64 * 1024);
  }

  @Test
  void anUnknownCodingIsAFetchErrorNamingIt() {
    server.replyBytes(200, new byte[] {0x0b, 0x02, (byte) 0x80}, "Content-Encoding", "br");

    assertThatThrownBy(() -> http.get(server.url("/br")))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessage(
            "GET "
                + server.url("/br")
                + " failed: the response body has Content-Encoding br, which watukuy does not"
                + " decode (it sends Accept-Encoding: gzip, deflate)");
  }

  @Test
  void aCorruptGzipIsAFetchErrorOnA2xxAndABinarySnippetOnAnError() {
    server
        .replyBytes(200, utf8("not gzip at all"), "Content-Encoding", "gzip")
        .replyBytes(503, utf8("whatever"), "Content-Encoding", "gzip");

    assertThatThrownBy(() -> http.get(server.url("/a")))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageStartingWith(
            "GET "
                + server.url("/a")
                + " failed: the body is not valid gzip (Content-Encoding gzip)");
    HttpStatusException status =
        catchThrowableOfType(HttpStatusException.class, () -> http.get(server.url("/b")));
    assertThat(status.bodySnippet()).isEqualTo("binary body (Content-Encoding gzip), 8 bytes");
  }

  @Test
  void aTruncatedGzipIsRefusedNotReadAsAShorterPage() throws IOException {
    byte[] whole = gzip(utf8(PAGE.repeat(50)));
    byte[] cut = java.util.Arrays.copyOf(whole, whole.length / 2);
    server.replyBytes(200, cut, "Content-Encoding", "gzip");

    assertThatThrownBy(() -> http.get(server.url("/cut")))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining("the body is not valid gzip (Content-Encoding gzip)")
        .hasMessageContaining("ends before the compressed data does");
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static byte[] gzip(byte[] plain) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream z = new GZIPOutputStream(out)) {
      z.write(plain);
    }
    return out.toByteArray();
  }

  private static byte[] deflate(byte[] plain, boolean raw) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, raw);
    try (DeflaterOutputStream z = new DeflaterOutputStream(out, deflater)) {
      z.write(plain);
    } finally {
      deflater.end();
    }
    return out.toByteArray();
  }
}
