package io.watukuy.examples.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;

/**
 * A vendor's file endpoint as exports and feeds are offered: {@code GET path} answers a file of a
 * folder as it is on disk (read on every request, so an edit shows at once), labelled with the
 * endpoint's content type, and compressed with its {@link Coding} when the request's {@code
 * Accept-Encoding} names that coding. A file name holding {@value #PAGE_SLOT} is a paged feed: the
 * slot takes the request's {@code page} query parameter (1 to 4 digits, {@code 1} when absent), and
 * a page that has no file is a 404. Listens on 127.0.0.1 only.
 *
 * <p>The examples serve their committed files with it: a windows-1252 CSV export gzip'd, an NDJSON
 * bulk export gzip'd, a paged XML feed deflate'd.
 */
public final class FileServer implements AutoCloseable {

  /** The place in {@link Endpoint#file()} that takes the requested page number. */
  public static final String PAGE_SLOT = "{page}";

  private static final Pattern PAGE = Pattern.compile("(?:^|&)page=(\\d{1,4})(?:&|$)");

  /** How a body is compressed on the wire when the client accepts it. */
  public enum Coding {
    /** {@code gzip} (RFC 1952). */
    GZIP,
    /** {@code deflate}: zlib (RFC 1950), which is what HTTP's {@code deflate} means. */
    DEFLATE;

    /**
     * The token of this coding in {@code Accept-Encoding} and {@code Content-Encoding}.
     *
     * @return {@code gzip} or {@code deflate}
     */
    public String token() {
      return name().toLowerCase(Locale.ROOT);
    }

    private byte[] encode(byte[] body) throws IOException {
      ByteArrayOutputStream coded = new ByteArrayOutputStream();
      try (OutputStream z =
          this == GZIP ? new GZIPOutputStream(coded) : new DeflaterOutputStream(coded)) {
        z.write(body);
      }
      return coded.toByteArray();
    }
  }

  /**
   * What the server answers.
   *
   * @param path the request path, such as {@code /export/stock.csv}
   * @param file the file name in the folder, such as {@code stock.csv}; with {@value #PAGE_SLOT} in
   *     it, one file a page
   * @param contentType the {@code Content-Type} sent, charset parameter included when the format
   *     does not fix it
   * @param coding the compression used when the request accepts it
   */
  public record Endpoint(String path, String file, String contentType, Coding coding) {
    /**
     * Checks the parts.
     *
     * @throws NullPointerException if a part is missing
     * @throws IllegalArgumentException if {@code path} does not start with {@code /}
     */
    public Endpoint {
      Objects.requireNonNull(path, "path");
      Objects.requireNonNull(file, "file");
      Objects.requireNonNull(contentType, "contentType");
      Objects.requireNonNull(coding, "coding");
      if (!path.startsWith("/")) {
        throw new IllegalArgumentException("path must start with '/', but was '" + path + "'");
      }
    }
  }

  private final HttpServer server;
  private final List<String> log = new CopyOnWriteArrayList<>();

  private FileServer(HttpServer server) {
    this.server = server;
  }

  /**
   * Starts the server.
   *
   * @param folder the folder holding the endpoint's file(s), read on every request
   * @param port the loopback port, 0 for a free one
   * @param endpoint what is served
   * @return the running server
   * @throws IOException if the port cannot be bound
   */
  public static FileServer start(Path folder, int port, Endpoint endpoint) throws IOException {
    HttpServer http =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
    FileServer files = new FileServer(http);
    http.createContext(
        endpoint.path(),
        exchange -> {
          try (exchange) {
            files.serve(exchange, folder, endpoint);
          }
        });
    http.start();
    return files;
  }

  private void serve(HttpExchange exchange, Path folder, Endpoint endpoint) throws IOException {
    String accepted = exchange.getRequestHeaders().getFirst("Accept-Encoding");
    boolean coded = accepted != null && accepted.contains(endpoint.coding().token());
    log.add(
        exchange.getRequestMethod()
            + " "
            + exchange.getRequestURI()
            + " "
            + (coded ? endpoint.coding().token() : "identity"));
    Path file = folder.resolve(fileName(endpoint.file(), exchange.getRequestURI().getRawQuery()));
    if (!Files.isRegularFile(file)) {
      exchange.sendResponseHeaders(404, -1);
      return;
    }
    byte[] body = Files.readAllBytes(file);
    exchange.getResponseHeaders().add("Content-Type", endpoint.contentType());
    if (coded) {
      body = endpoint.coding().encode(body);
      exchange.getResponseHeaders().add("Content-Encoding", endpoint.coding().token());
    }
    exchange.sendResponseHeaders(200, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private static String fileName(String file, String query) {
    if (!file.contains(PAGE_SLOT)) {
      return file;
    }
    Matcher m = PAGE.matcher(query == null ? "" : query);
    return file.replace(PAGE_SLOT, m.find() ? m.group(1) : "1");
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
   * The requests served, in order, each with the coding of its answer.
   *
   * @return lines like {@code GET /export/stock.csv gzip} or {@code GET /feed/products.xml?page=2
   *     identity}
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
   * @param args the folder, the port, the path, the file name, the content type and the coding
   *     ({@code gzip} or {@code deflate}), all six required
   * @throws IOException if the port cannot be bound
   */
  public static void main(String[] args) throws IOException {
    if (args.length != 6) {
      System.err.println(
          "usage: FileServer FOLDER PORT PATH FILE CONTENT-TYPE gzip|deflate"
              + " (FILE may hold "
              + PAGE_SLOT
              + ")");
      System.exit(2);
    }
    Path folder = Path.of(args[0]);
    Coding coding;
    try {
      coding = Coding.valueOf(args[5].toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      System.err.println("coding must be gzip or deflate, but was '" + args[5] + "'");
      System.exit(2);
      return;
    }
    Endpoint endpoint = new Endpoint(args[2], args[3], args[4], coding);
    FileServer s = start(folder, Integer.parseInt(args[1]), endpoint);
    System.out.println(
        "serving " + folder.resolve(endpoint.file()) + " at " + s.url() + endpoint.path());
  }
}
