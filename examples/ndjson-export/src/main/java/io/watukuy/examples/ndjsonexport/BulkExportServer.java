package io.watukuy.examples.ndjsonexport;

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
 * A bulk-export endpoint as CRMs and billing systems offer one: {@code GET
 * /api/v1/exports/customers} answers the file {@code customers.ndjson} of its folder as it is on
 * disk (UTF-8, one JSON object a line), labelled {@code application/x-ndjson}, and gzip'd when the
 * request's {@code Accept-Encoding} allows it. Listens on 127.0.0.1 only.
 */
public final class BulkExportServer implements AutoCloseable {

  private final HttpServer server;
  private final List<String> log = new CopyOnWriteArrayList<>();

  private BulkExportServer(HttpServer server) {
    this.server = server;
  }

  /**
   * Starts the server.
   *
   * @param folder the folder holding {@code customers.ndjson}, read on every request
   * @param port the loopback port, 0 for a free one
   * @return the running server
   * @throws IOException if the port cannot be bound
   */
  public static BulkExportServer start(Path folder, int port) throws IOException {
    HttpServer http =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
    BulkExportServer export = new BulkExportServer(http);
    http.createContext(
        "/api/v1/exports/customers",
        exchange -> {
          try (exchange) {
            byte[] body = Files.readAllBytes(folder.resolve("customers.ndjson"));
            String accepted = exchange.getRequestHeaders().getFirst("Accept-Encoding");
            boolean gzip = accepted != null && accepted.contains("gzip");
            export.log.add(
                exchange.getRequestMethod()
                    + " "
                    + exchange.getRequestURI()
                    + (gzip ? " gzip" : " identity"));
            // No charset parameter: NDJSON is UTF-8 by definition, as JSON is.
            exchange.getResponseHeaders().add("Content-Type", "application/x-ndjson");
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
   * @return lines like {@code GET /api/v1/exports/customers gzip}
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
   * @param args the folder holding {@code customers.ndjson} and the port (default {@code .} and
   *     3992)
   * @throws IOException if the port cannot be bound
   */
  public static void main(String[] args) throws IOException {
    Path folder = Path.of(args.length > 0 ? args[0] : ".");
    int port = args.length > 1 ? Integer.parseInt(args[1]) : 3992;
    BulkExportServer s = start(folder, port);
    System.out.println(
        "serving "
            + folder.resolve("customers.ndjson")
            + " at "
            + s.url()
            + "/api/v1/exports/customers");
  }
}
