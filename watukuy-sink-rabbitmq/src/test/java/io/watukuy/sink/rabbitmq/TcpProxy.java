package io.watukuy.sink.rabbitmq;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on 127.0.0.1 in front of the machine's RabbitMQ, so a test can lose the connection
 * ({@link #cut}: open connections closed, new ones refused), bring it back ({@link #reopen}) or
 * hold the broker's answers back ({@link #mute}) while the client's bytes still reach the broker.
 */
final class TcpProxy implements AutoCloseable {
  private final int targetPort;
  private final int port;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile ServerSocket listener;
  private volatile boolean muted;

  TcpProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    ServerSocket s = new ServerSocket();
    s.setReuseAddress(true);
    s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    this.port = s.getLocalPort();
    listen(s);
  }

  int port() {
    return port;
  }

  /** Closes every open connection and stops accepting: a connect is refused. */
  void cut() throws IOException {
    listener.close();
    // Each socket is removed as it is closed (not clear()ed after), so one the accept thread adds
    // meanwhile is never dropped unclosed; that thread closes a pair it adds after this point.
    for (Socket s : sockets) {
      s.close();
      sockets.remove(s);
    }
  }

  /** Accepts again, on the same port. */
  void reopen() throws IOException {
    ServerSocket s = new ServerSocket();
    s.setReuseAddress(true);
    s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    listen(s);
  }

  /** While muted, nothing the broker sends reaches the client; it is delivered when unmuted. */
  void mute(boolean muted) {
    this.muted = muted;
  }

  private void listen(ServerSocket s) {
    listener = s;
    daemon(
        () -> {
          while (!s.isClosed()) {
            try {
              Socket client = s.accept();
              Socket broker = new Socket(InetAddress.getLoopbackAddress(), targetPort);
              client.setTcpNoDelay(true);
              broker.setTcpNoDelay(true);
              sockets.add(client);
              sockets.add(broker);
              if (s.isClosed()) {
                // Accepted before cut() closed the listener, added after it closed the others.
                closeQuietly(client);
                closeQuietly(broker);
                return;
              }
              daemon(() -> pump(client, broker, false));
              daemon(() -> pump(broker, client, true));
            } catch (IOException e) {
              return; // closed by cut() or close()
            }
          }
        });
  }

  private void pump(Socket from, Socket to, boolean fromBroker) {
    byte[] buffer = new byte[16 * 1024];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      while (true) {
        int n = in.read(buffer);
        if (n < 0) break;
        // Held after the read, since a read may already wait when mute() is called. Bounded: the
        // test undoes mute() or closes the sockets.
        while (fromBroker && muted && !from.isClosed()) Thread.sleep(5);
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException | InterruptedException e) {
      // the other side or cut() closed the connection
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // already closed
    }
  }

  private static void daemon(Runnable r) {
    Thread t = new Thread(r, "tcp-proxy");
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void close() throws IOException {
    muted = false;
    cut();
  }
}
