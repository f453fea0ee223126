package io.watukuy.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.GZIPOutputStream;

/**
 * A hostile vendor: a real HTTP/1.1 server on 127.0.0.1 and an ephemeral port whose paths serve
 * the bodies that must not hurt a poller (docs/operations.md, "Bodies that are refused"). Large
 * bodies are streamed from one small buffer, never built in the server's memory, so a test can
 * serve hundreds of megabytes from a small heap. Paths, each under any prefix-free URL:
 *
 * <ul>
 *   <li>{@code /ok}: a small listing {@code {"items":[{"id":"a","v":1},{"id":"b","v":2}]}}.
 *   <li>{@code /growing}: items {@code g1} to {@code gN} for the Nth request to it: a listing
 *       with one new item per poll, to see a poller go on delivering.
 *   <li>{@code /announced?mb=N}: {@code Content-Length} of N MiB (default 256) and a body of
 *       spaces streamed until the client hangs up.
 *   <li>{@code /endless}: a chunked listing that never ends ({@code {"items":[{"id":"x0"},...}).
 *   <li>{@code /huge-item?mb=N}: a chunked listing of one item with an N MiB string (default 30),
 *       then a small item {@code {"id":"small"}}.
 *   <li>{@code /long-string?mb=N}: the same listing with Content-Length, for Jackson's string
 *       limit (default 21 MiB, above its 20 000 000 characters).
 *   <li>{@code /duplicate-keys}: {@code {"items":[{"id":1,"id":7}]}}.
 *   <li>{@code /trailing}: {@code {"items":[{"id":1}]} {"items":[]}}, two documents.
 *   <li>{@code /big-number}: {@code {"items":[{"id":"n","amount":1e400}]}}, out of double range.
 *   <li>{@code /gzip}: an HTML page, gzip'd, with {@code Content-Encoding: gzip}.
 * </ul>
 *
 * Every streamed body stops after 30 s or 4 GiB at the latest, and when the client stops reading.
 * Each connection serves one request on a daemon thread; {@link #close()} cuts them all off.
 *
 * @since 0.1
 */
public final class HostileVendor implements AutoCloseable {

  private static final int MAX_HEAD_BYTES = 64 * 1024;
  private static final long MAX_STREAM_BYTES = 4L << 30;
  private static final long MAX_STREAM_NANOS = TimeUnit.SECONDS.toNanos(30);
  private static final int MIB = 1 << 20;

  private final ServerSocket socket;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
  private final AtomicLong bytesSent = new AtomicLong();
  private volatile boolean closed;

  private HostileVendor(ServerSocket socket) {
    this.socket = socket;
    Thread acceptor = new Thread(this::accept, "hostile-vendor-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /**
   * Starts the server on 127.0.0.1 and an ephemeral port.
   *
   * @return the running server; close it when done
   * @throws UncheckedIOException if the port cannot be opened
   */
  public static HostileVendor start() {
    try {
      return new HostileVendor(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open a port on 127.0.0.1", e);
    }
  }

  /**
   * The URL of a path on this server.
   *
   * @param pathAndQuery for example {@code /huge-item?mb=30}
   * @return {@code http://127.0.0.1:<port>} followed by {@code pathAndQuery}
   */
  public String url(String pathAndQuery) {
    return "http://127.0.0.1:" + socket.getLocalPort() + pathAndQuery;
  }

  /**
   * Requests received for a path.
   *
   * @param path without the query, for example {@code /ok}
   * @return how many requests asked for it so far
   */
  public int requests(String path) {
    AtomicInteger n = requests.get(path);
    return n == null ? 0 : n.get();
  }

  /**
   * Body bytes written so far on every path: a client that cuts a body off early keeps this far
   * below what the server offered.
   *
   * @return bytes
   */
  public long bytesSent() {
    return bytesSent.get();
  }

  private void accept() {
    while (!closed) {
      Socket s;
      try {
        s = socket.accept();
      } catch (IOException e) {
        return; // closed
      }
      open.add(s);
      Thread t =
          new Thread(
              () -> {
                try (s) {
                  serve(s);
                } catch (IOException | RuntimeException e) {
                  // The client hung up: what a refused body looks like from here.
                } finally {
                  open.remove(s);
                }
              },
              "hostile-vendor-conn");
      t.setDaemon(true);
      t.start();
    }
  }

  private void serve(Socket s) throws IOException {
    s.setSoTimeout(5_000);
    String target = requestTarget(s.getInputStream());
    int q = target.indexOf('?');
    String path = q < 0 ? target : target.substring(0, q);
    int mb = q < 0 ? -1 : mib(target.substring(q + 1));
    requests.computeIfAbsent(path, k -> new AtomicInteger()).incrementAndGet();
    OutputStream out = s.getOutputStream();
    switch (path) {
      case "/ok" -> fixed(out, "{\"items\":[{\"id\":\"a\",\"v\":1},{\"id\":\"b\",\"v\":2}]}");
      case "/growing" -> fixed(out, growing(requests("/growing")));
      case "/duplicate-keys" -> fixed(out, "{\"items\":[{\"id\":1,\"id\":7}]}");
      case "/trailing" -> fixed(out, "{\"items\":[{\"id\":1}]} {\"items\":[]}");
      case "/big-number" -> fixed(out, "{\"items\":[{\"id\":\"n\",\"amount\":1e400}]}");
      case "/gzip" -> gzip(out);
      case "/announced" -> announced(out, (mb < 0 ? 256L : mb) * MIB);
      case "/endless" -> endless(out);
      case "/huge-item" -> hugeItem(out, (mb < 0 ? 30L : mb) * MIB, true);
      case "/long-string" -> hugeItem(out, (mb < 0 ? 21L : mb) * MIB, false);
      default -> head(out, 404, "Content-Length: 0\r\n");
    }
    out.flush();
  }

  // Items g1 to gN for the Nth request: every poll of it has one new item, one more event.
  private static String growing(int n) {
    StringBuilder b = new StringBuilder("{\"items\":[");
    for (int i = 1; i <= n; i++)
      b.append(i == 1 ? "" : ",").append("{\"id\":\"g").append(i).append("\"}");
    return b.append("]}").toString();
  }

  private static int mib(String query) {
    for (String pair : query.split("&")) {
      if (pair.startsWith("mb=")) return Integer.parseInt(pair.substring(3));
    }
    return -1;
  }

  private static String requestTarget(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int last4 = 0;
    while (head.size() < MAX_HEAD_BYTES) {
      int b = in.read();
      if (b < 0) break;
      head.write(b);
      last4 = (last4 << 8) | b;
      if (last4 == 0x0d0a0d0a) break;
    }
    String first = head.toString(StandardCharsets.ISO_8859_1).split("\r\n", 2)[0];
    String[] parts = first.split(" ");
    if (parts.length < 2) throw new IOException("not an HTTP request: " + first);
    return parts[1];
  }

  private void head(OutputStream out, int status, String headers) throws IOException {
    out.write(
        ("HTTP/1.1 " + status + " X\r\nConnection: close\r\n" + headers + "\r\n")
            .getBytes(StandardCharsets.ISO_8859_1));
  }

  private void fixed(OutputStream out, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    head(out, 200, "Content-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n");
    write(out, bytes, bytes.length);
  }

  private void gzip(OutputStream out) throws IOException {
    ByteArrayOutputStream zipped = new ByteArrayOutputStream();
    try (GZIPOutputStream z = new GZIPOutputStream(zipped)) {
      z.write("<html><body>maintenance</body></html>".getBytes(StandardCharsets.UTF_8));
    }
    byte[] bytes = zipped.toByteArray();
    head(
        out,
        200,
        "Content-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: "
            + bytes.length
            + "\r\n");
    write(out, bytes, bytes.length);
  }

  private void announced(OutputStream out, long length) throws IOException {
    head(out, 200, "Content-Type: application/json\r\nContent-Length: " + length + "\r\n");
    byte[] spaces = new byte[64 * 1024];
    Arrays.fill(spaces, (byte) ' ');
    long deadline = System.nanoTime() + MAX_STREAM_NANOS;
    for (long sent = 0; sent < length && System.nanoTime() < deadline; ) {
      int n = (int) Math.min(spaces.length, length - sent);
      write(out, spaces, n);
      sent += n;
    }
  }

  private void endless(OutputStream out) throws IOException {
    head(out, 200, "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n");
    chunk(out, "{\"items\":[".getBytes(StandardCharsets.UTF_8));
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 2000; i++) b.append("{\"id\":\"x").append(i).append("\"},");
    byte[] items = b.toString().getBytes(StandardCharsets.UTF_8);
    long deadline = System.nanoTime() + MAX_STREAM_NANOS;
    for (long sent = 0; sent < MAX_STREAM_BYTES && System.nanoTime() < deadline; ) {
      chunk(out, items);
      sent += items.length;
    }
  }

  private void hugeItem(OutputStream out, long stringBytes, boolean chunked) throws IOException {
    byte[] start = "{\"items\":[{\"id\":\"huge\",\"blob\":\"".getBytes(StandardCharsets.UTF_8);
    byte[] end = "\"},{\"id\":\"small\"}]}".getBytes(StandardCharsets.UTF_8);
    if (chunked) {
      head(out, 200, "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n");
    } else {
      long length = start.length + stringBytes + end.length;
      head(out, 200, "Content-Type: application/json\r\nContent-Length: " + length + "\r\n");
    }
    byte[] letters = new byte[64 * 1024];
    Arrays.fill(letters, (byte) 'a');
    send(out, start, start.length, chunked);
    for (long sent = 0; sent < stringBytes; ) {
      int n = (int) Math.min(letters.length, stringBytes - sent);
      send(out, letters, n, chunked);
      sent += n;
    }
    send(out, end, end.length, chunked);
    if (chunked) out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
  }

  private void send(OutputStream out, byte[] bytes, int length, boolean chunked)
      throws IOException {
    if (chunked) chunk(out, Arrays.copyOf(bytes, length));
    else write(out, bytes, length);
  }

  private void chunk(OutputStream out, byte[] bytes) throws IOException {
    out.write((Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
    write(out, bytes, bytes.length);
    out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
  }

  private void write(OutputStream out, byte[] bytes, int length) throws IOException {
    out.write(bytes, 0, length);
    bytesSent.addAndGet(length);
  }

  /** Stops accepting and cuts off every exchange in progress. */
  @Override
  public void close() {
    closed = true;
    try {
      socket.close();
    } catch (IOException e) {
      // closing anyway
    }
    for (Socket s : open) {
      try {
        s.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }
}
