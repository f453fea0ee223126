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

/**
 * The example's two parties on one loopback port: the vendor ({@code GET /orders} answers the
 * orders file, read again on every request so an edit shows at the next cycle) and the receiver of
 * the effect ({@code POST /welcome/CUSTOMER} prints the request and its {@code Idempotency-Key},
 * and says when a key comes a second time, which is what a receiver that honours it would drop).
 *
 * <p>Usage: {@code Receiver ORDERS_JSON PORT}.
 */
public final class Receiver {
  private static final Set<String> SEEN = ConcurrentHashMap.newKeySet();

  private Receiver() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: Receiver ORDERS_JSON PORT");
      System.exit(2);
    }
    Path orders = Path.of(args[0]);
    HttpServer server =
        HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[1])), 0);
    server.createContext("/orders", ex -> answer(ex, 200, Files.readAllBytes(orders)));
    server.createContext("/welcome/", Receiver::welcome);
    server.start();
    System.out.println("receiver on http://127.0.0.1:" + args[1] + "; Ctrl-C to stop");
  }

  private static void welcome(HttpExchange ex) throws IOException {
    String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    String key = ex.getRequestHeaders().getFirst("Idempotency-Key");
    boolean repeat = key != null && !SEEN.add(key);
    System.out.println(
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
