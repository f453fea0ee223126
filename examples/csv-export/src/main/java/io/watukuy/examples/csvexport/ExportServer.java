package io.watukuy.examples.csvexport;

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
import java.util.zip.GZIPOutputStream;

/**
 * A nightly-export endpoint as ERPs offer one: {@code GET /export/stock.csv} answers the file
 * {@code stock.csv} of its folder as it is on disk (windows-1252, {@code ;}-separated), labelled
 * {@code text/csv; charset=windows-1252}, and gzip'd when the request's {@code Accept-Encoding}
 * allows it. Listens on 127.0.0.1 only.
 */
public final class ExportServer implements AutoCloseable {

  private final HttpServer server;
  private final List<String> log = new CopyOnWriteArrayList<>();

  private ExportServer(HttpServer server) {
    this.server = server;
  }

  /**
   * Starts the server.
   *
   * @param folder the folder holding {@code stock.csv}, read on every request
   * @param port the loopback port, 0 for a free one
   * @return the running server
   * @throws IOException if the port cannot be bound
   */
  public static ExportServer start(Path folder, int port) throws IOException {
    HttpServer http =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
    ExportServer export = new ExportServer(http);
    http.createContext(
        "/export/stock.csv",
        exchange -> {
          try (exchange) {
            byte[] body = Files.readAllBytes(folder.resolve("stock.csv"));
            String accepted = exchange.getRequestHeaders().getFirst("Accept-Encoding");
            boolean gzip = accepted != null && accepted.contains("gzip");
            export.log.add(
                exchange.getRequestMethod()
                    + " "
                    + exchange.getRequestURI()
                    + (gzip ? " gzip" : " identity"));
            exchange.getResponseHeaders().add("Content-Type", "text/csv; charset=windows-1252");
            if (gzip) {
              ByteArrayOutputStream zipped = new ByteArrayOutputStream();
              try (GZIPOutputStream z = new GZIPOutputStream(zipped)) {
                z.write(body);
              }
              body = zipped.toByteArray();
              exchange.getResponseHeaders().add("Content-Encoding", "gzip");
            }
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(body);
            }
          }
        });
    http.start();
    return export;
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
   * @return lines like {@code GET /export/stock.csv gzip}
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
   * @param args the folder holding {@code stock.csv} and the port (default {@code .} and 3998)
   * @throws IOException if the port cannot be bound
   */
  public static void main(String[] args) throws IOException {
    Path folder = Path.of(args.length > 0 ? args[0] : ".");
    int port = args.length > 1 ? Integer.parseInt(args[1]) : 3998;
    ExportServer s = start(folder, port);
    System.out.println(
        "serving " + folder.resolve("stock.csv") + " at " + s.url() + "/export/stock.csv");
  }
}
