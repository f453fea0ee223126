package io.watukuy.examples.effects;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The example's two parties on one loopback port: the vendor ({@code GET /orders} answers the
 * orders file, read again on every request so an edit shows at the next cycle) and the receiver of
 * the effect ({@code POST /welcome/CUSTOMER} prints the request and its {@code Idempotency-Key},
 * and says when a key comes a second time, which is what a receiver that honours it would drop).
 *
 * <p>Usage: {@code Receiver ORDERS_JSON PORT}.
 */
public final class Receiver implements AutoCloseable {
  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  private final Consumer<String> lines;
  private final HttpServer server;

  private Receiver(Path orders, int port, Consumer<String> lines) throws IOException {
    this.lines = lines;
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
    server.createContext("/orders", ex -> answer(ex, 200, Files.readAllBytes(orders)));
    server.createContext("/welcome/", this::welcome);
    server.start();
  }

  /**
   * Starts the two parties on a loopback port.
   *
   * @param orders the orders file {@code GET /orders} answers
   * @param port the port; 0 for a free one
   * @param lines gets one line per request to {@code /welcome/}
   * @return the running server
   * @throws IOException if the port cannot be bound
   */
  public static Receiver start(Path orders, int port, Consumer<String> lines) throws IOException {
    return new Receiver(orders, port, lines);
  }

  /**
   * The port it listens on.
   *
   * @return the bound port
   */
  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: Receiver ORDERS_JSON PORT");
      System.exit(2);
    }
    start(Path.of(args[0]), Integer.parseInt(args[1]), System.out::println);
    System.out.println("receiver on http://127.0.0.1:" + args[1] + "; Ctrl-C to stop");
  }

  private void welcome(HttpExchange ex) throws IOException {
    String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    String key = ex.getRequestHeaders().getFirst("Idempotency-Key");
    boolean repeat = key != null && !seen.add(key);
    lines.accept(
        ex.getRequestMethod()
            + " "
            + ex.getRequestURI().getRawPath()
            + " "
            + body
            + " Idempotency-Key: "
            + key
            + (repeat ? " (a repeat: a receiver that honours the key drops it)" : ""));
    answer(ex, 204, new byte[0]);
  }

  private static void answer(HttpExchange ex, int status, byte[] body) throws IOException {
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    if (body.length > 0) ex.getResponseBody().write(body);
    ex.close();
  }
}
