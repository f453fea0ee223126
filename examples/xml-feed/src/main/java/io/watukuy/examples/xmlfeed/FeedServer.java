package io.watukuy.examples.xmlfeed;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.DeflaterOutputStream;

/**
 * A product feed as shops publish one for marketplaces and price comparison sites: {@code GET
 * /feed/products.xml?page=N} answers the file {@code products-N.xml} of its folder as it is on disk
 * (page 1 without {@code page}), labelled {@code application/xml}, and deflate'd (zlib, RFC 1950,
 * which is what HTTP's {@code deflate} means) when the request's {@code Accept-Encoding} allows it.
 * A page that has no file is a 404. Each page names the next one in its root's {@code next}
 * attribute; the server does not write it, the files do. Listens on 127.0.0.1 only.
 */
public final class FeedServer implements AutoCloseable {

  private static final Pattern PAGE = Pattern.compile("(?:^|&)page=(\\d{1,4})(?:&|$)");

  private final HttpServer server;
  private final List<String> log = new CopyOnWriteArrayList<>();

  private FeedServer(HttpServer server) {
    this.server = server;
  }

  /**
   * Starts the server.
   *
   * @param folder the folder holding {@code products-1.xml}, {@code products-2.xml}, ..., read on
   *     every request
   * @param port the loopback port, 0 for a free one
   * @return the running server
   * @throws IOException if the port cannot be bound
   */
  public static FeedServer start(Path folder, int port) throws IOException {
    HttpServer http =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
    FeedServer feed = new FeedServer(http);
    http.createContext(
        "/feed/products.xml",
        exchange -> {
          try (exchange) {
            String query = exchange.getRequestURI().getRawQuery();
            Matcher m = PAGE.matcher(query == null ? "" : query);
            String page = m.find() ? m.group(1) : "1";
            String accepted = exchange.getRequestHeaders().getFirst("Accept-Encoding");
            boolean deflate = accepted != null && accepted.contains("deflate");
            feed.log.add(
                exchange.getRequestMethod()
                    + " "
                    + exchange.getRequestURI()
                    + (deflate ? " deflate" : " identity"));
            Path file = folder.resolve("products-" + page + ".xml");
            if (!Files.isRegularFile(file)) {
              exchange.sendResponseHeaders(404, -1);
              return;
            }
            byte[] body = Files.readAllBytes(file);
            // No charset parameter: the document's own declaration (UTF-8) says it.
            exchange.getResponseHeaders().add("Content-Type", "application/xml");
            if (deflate) {
              ByteArrayOutputStream zipped = new ByteArrayOutputStream();
              try (DeflaterOutputStream z = new DeflaterOutputStream(zipped)) {
                z.write(body);
              }
              body = zipped.toByteArray();
              exchange.getResponseHeaders().add("Content-Encoding", "deflate");
            }
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(body);
            }
          }
        });
    http.start();
    return feed;
  }

  /**
   * The base URL.
   *
   * @return {@code http://127.0.0.1:PORT}
   */
  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /**
   * The requests served, in order.
   *
   * @return lines like {@code GET /feed/products.xml?page=2 deflate}
   */
  public List<String> log() {
    return List.copyOf(log);
  }

  @Override
  public void close() {
    server.stop(0);
  }

  /**
   * Runs the server until the process is stopped.
   *
   * @param args the folder holding the pages and the port (default {@code .} and 3993)
   * @throws IOException if the port cannot be bound
   */
  public static void main(String[] args) throws IOException {
    Path folder = Path.of(args.length > 0 ? args[0] : ".");
    int port = args.length > 1 ? Integer.parseInt(args[1]) : 3993;
    FeedServer s = start(folder, port);
    System.out.println(
        "serving " + folder.resolve("products-N.xml") + " at " + s.url() + "/feed/products.xml");
  }
}
