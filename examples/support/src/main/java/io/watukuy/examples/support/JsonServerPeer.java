package io.watukuy.examples.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * json-server 0.17.4 ({@link Peers}) for the examples that poll it: started on a copy of a seed
 * file, and written to as a client would.
 */
public final class JsonServerPeer {
  private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(10);
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(HTTP_TIMEOUT).build();

  private JsonServerPeer() {}

  /**
   * Starts json-server on a free loopback port, serving a copy of {@code seed} in {@code dir}
   * (json-server rewrites its file on every write, so the seed is never served itself).
   *
   * @param seed the {@code db.json} to copy
   * @param dir the server's working folder; the copy and {@code server.log} go there
   * @param logRequests whether json-server logs each request ({@link LocalServer#log()}); off
   *     passes {@code --quiet}
   * @return the running server
   * @throws IllegalStateException if it does not listen within 30 s (its log in the message)
   */
  public static LocalServer start(Path seed, Path dir, boolean logRequests) {
    try {
      Files.copy(seed, dir.resolve("db.json"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    int port = LocalServer.freePort();
    List<String> command = new ArrayList<>();
    command.add(Peers.bin("json-server").toString());
    command.addAll(List.of("--host", "127.0.0.1", "--port", Integer.toString(port)));
    if (!logRequests) command.add("--quiet");
    command.add("db.json");
    return LocalServer.start("json-server", command, dir, port, Duration.ofSeconds(30));
  }

  /**
   * One write to the server: {@code method} on {@code path}, with {@code body} as JSON.
   *
   * @param body the JSON body, or null for none (a DELETE)
   * @return the status and the response body
   * @throws IOException if the request fails; {@link InterruptedException} if interrupted
   */
  public static HttpResponse<String> send(
      LocalServer server, String method, String path, @Nullable String body)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(server.url() + path)).timeout(HTTP_TIMEOUT);
    if (body == null) {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      b.header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(body));
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
