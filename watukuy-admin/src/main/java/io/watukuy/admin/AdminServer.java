package io.watukuy.admin;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.watukuy.ConfigException;
import io.watukuy.Watukuy;
import io.watukuy.spi.StateStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The admin HTTP server of one engine (docs/operations.md, "Admin HTTP"), on the JDK's {@link
 * HttpServer}: health for probes and alerting, Prometheus metrics, the inspection, pause, resume
 * and trigger, parked retry and discard, and the dashboard at {@code /}.
 *
 * <pre>{@code
 * try (AdminServer admin = AdminServer.builder(engine).store(store).metrics(registry).build()) {
 *   admin.start();                       // 127.0.0.1:8080 unless bind(...) says otherwise
 *   ...
 * }
 * }</pre>
 *
 * <p>Security: it binds to loopback by default. Binding any other address needs a bearer token
 * ({@link Builder#token}, {@link Builder#tokenFile}), without which {@link Builder#build()} throws.
 * Every request must name an allowed {@code Host} and carry no foreign {@code Origin} (DNS
 * rebinding, CSRF); every {@code POST} needs the token, or, when no token is set, the header {@code
 * X-Watukuy-Admin: 1}, which a cross-site form cannot send. Request bodies are bounded to {@link
 * #MAX_BODY_BYTES}. Every response body is passed through the engine's redaction of the secrets
 * given to {@link Builder#secrets}.
 *
 * @since 0.3
 */
public final class AdminServer implements AutoCloseable {
  /** The default bind address: loopback only. */
  public static final String DEFAULT_HOST = "127.0.0.1";

  /** The default port. */
  public static final int DEFAULT_PORT = 8080;

  /** The largest request body accepted; a larger one is answered 413. */
  public static final int MAX_BODY_BYTES = 64 * 1024;

  /** How long {@code /health/ready} waits for its store call before answering 503. */
  public static final Duration DEFAULT_READY_TIMEOUT = Duration.ofSeconds(2);

  /** The shortest bearer token accepted, in characters. */
  public static final int MIN_TOKEN_LENGTH = 16;

  /** The header that marks a {@code POST} as sent by a script or the dashboard, not a form. */
  public static final String ADMIN_HEADER = "X-Watukuy-Admin";

  private static final int THREADS = 2;

  private final InetSocketAddress bind;
  private final String host;
  private final Routes routes;
  private final Object lock = new Object();
  private @Nullable HttpServer server;
  private @Nullable ExecutorService executor;
  private boolean closed;

  private AdminServer(InetSocketAddress bind, String host, Routes routes) {
    this.bind = bind;
    this.host = host;
    this.routes = routes;
  }

  /**
   * A builder for a server over an engine.
   *
   * @param engine the engine whose health, inspection and operations are served
   * @return a builder with the defaults: {@value #DEFAULT_HOST}:{@value #DEFAULT_PORT}, no token,
   *     no metrics registry, no store probe
   * @throws NullPointerException if engine is null
   */
  public static Builder builder(Watukuy engine) {
    return new Builder(Objects.requireNonNull(engine, "engine"));
  }

  /**
   * Binds the address and starts serving on two daemon threads.
   *
   * @throws IllegalStateException if already started or closed
   * @throws UncheckedIOException if the address cannot be bound (in use, not local); the message
   *     names it
   */
  public void start() {
    synchronized (lock) {
      if (closed) throw new IllegalStateException("admin server is closed");
      if (server != null) throw new IllegalStateException("admin server already started");
      HttpServer s;
      try {
        s = HttpServer.create(bind, 0);
      } catch (IOException e) {
        throw new UncheckedIOException(
            "admin server: cannot bind " + text(bind) + ": " + e.getMessage(), e);
      }
      AtomicInteger n = new AtomicInteger();
      ExecutorService pool =
          Executors.newFixedThreadPool(
              THREADS,
              r -> {
                Thread t = new Thread(r, "watukuy-admin-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
              });
      s.setExecutor(pool);
      s.createContext("/", routes);
      routes.bound(s.getAddress().getPort());
      s.start();
      server = s;
      executor = pool;
    }
  }

  /**
   * The port the server listens on: the one bound when {@link Builder#bind} gave port 0.
   *
   * @return the port
   * @throws IllegalStateException if not started
   */
  public int port() {
    synchronized (lock) {
      if (server == null) throw new IllegalStateException("admin server not started");
      return server.getAddress().getPort();
    }
  }

  /**
   * The address the server listens on.
   *
   * @return host and port; the port is the bound one once started
   */
  public InetSocketAddress address() {
    synchronized (lock) {
      return server == null ? bind : server.getAddress();
    }
  }

  /**
   * The server's base URL for a start line or a log: {@code http://HOST:PORT} with the host as
   * given to {@link Builder#bind} (an IPv6 address in brackets, so the IPv6 wildcard reads {@code
   * http://[::]:8080}, not the expanded {@code [0:0:0:0:0:0:0:0]} of {@link #address()}) and the
   * port bound once started.
   *
   * @return for example {@code http://127.0.0.1:8080}
   */
  public String url() {
    String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    return "http://" + h + ":" + address().getPort();
  }

  /**
   * Stops serving at once: open connections are closed, so a request in flight gets no answer (an
   * operation it started still completes in the engine). Does not stop the engine. Idempotent.
   */
  @Override
  public void close() {
    HttpServer s;
    ExecutorService pool;
    synchronized (lock) {
      closed = true;
      s = server;
      pool = executor;
      server = null;
      executor = null;
    }
    if (s != null) s.stop(0);
    if (pool != null) {
      pool.shutdown();
      try {
        if (!pool.awaitTermination(1, TimeUnit.SECONDS)) pool.shutdownNow();
      } catch (InterruptedException e) {
        pool.shutdownNow();
        Thread.currentThread().interrupt();
      }
    }
    routes.close();
  }

  private static String text(InetSocketAddress a) {
    return a.getHostString() + ":" + a.getPort();
  }

  /**
   * Parses {@code HOST:PORT} as the command line's {@code --admin} takes it: an IPv4 address, a
   * host name, or a bracketed IPv6 address ({@code [::1]:8080}); port 0 picks a free one.
   *
   * @param option the option or field the text came from, for the message
   * @param text the text
   * @return the unresolved host and the port
   * @throws ConfigException naming the option and the text when it is not {@code HOST:PORT} with a
   *     port from 0 to 65535
   */
  public static InetSocketAddress parseAddress(String option, String text) {
    int colon = text.lastIndexOf(':');
    String why = "expected HOST:PORT such as 127.0.0.1:8080 or [::1]:8080";
    if (colon <= 0 || colon == text.length() - 1)
      throw new ConfigException(option + " '" + text + "': " + why);
    String host = text.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
    else if (host.contains(":"))
      throw new ConfigException(option + " '" + text + "': an IPv6 address goes in brackets");
    int port;
    try {
      port = Integer.parseInt(text.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new ConfigException(option + " '" + text + "': the port is not a number; " + why);
    }
    if (port < 0 || port > 65535)
      throw new ConfigException(
          option + " '" + text + "': port " + port + " is out of range 0..65535");
    if (host.isBlank()) throw new ConfigException(option + " '" + text + "': " + why);
    return InetSocketAddress.createUnresolved(host, port);
  }

  /**
   * Refuses a non-loopback bind address without a token, as {@link Builder#build()} does: for a
   * caller that checks its options before it has an engine (the command line's {@code --admin}).
   *
   * @param address the resolved bind address
   * @param host the host as given, for the message
   * @param port the port, for the message
   * @param token whether a bearer token is set
   * @throws ConfigException if the address is not loopback and there is no token
   */
  public static void checkBind(InetAddress address, String host, int port, boolean token) {
    if (!address.isLoopbackAddress() && !token)
      throw new ConfigException(
          "admin bind address "
              + host
              + ":"
              + port
              + " is not loopback: set a bearer token (--admin-token-file), or bind 127.0.0.1");
  }

  /**
   * Refuses a token unfit as one, as {@link Builder#token} does.
   *
   * @param token the token
   * @throws ConfigException if shorter than {@value #MIN_TOKEN_LENGTH} characters or with white
   *     space; the message never repeats the token
   */
  public static void checkToken(String token) {
    Objects.requireNonNull(token, "token");
    if (token.length() < MIN_TOKEN_LENGTH)
      throw new ConfigException(
          "admin token is "
              + token.length()
              + " characters long; at least "
              + MIN_TOKEN_LENGTH
              + " are needed (e.g. openssl rand -hex 32)");
    if (token.chars().anyMatch(Character::isWhitespace))
      throw new ConfigException("admin token holds white space; use one word, e.g. hex");
  }

  /** Builds an {@link AdminServer}. Not thread-safe; each setter returns this builder. */
  public static final class Builder {
    private final Watukuy engine;
    private String host = DEFAULT_HOST;
    private int port = DEFAULT_PORT;
    private @Nullable String token;
    private @Nullable PrometheusMeterRegistry metrics;
    private @Nullable StateStore store;
    private Duration readyTimeout = DEFAULT_READY_TIMEOUT;
    // Object, not Effects: the builder must load where the effects module is absent.
    private @Nullable Object effects;
    private final Set<String> hosts = new LinkedHashSet<>();
    private final Set<String> secrets = new LinkedHashSet<>();

    private Builder(Watukuy engine) {
      this.engine = engine;
    }

    /**
     * The address to listen on.
     *
     * @param host an IP address or a host name; loopback ({@code 127.0.0.1}, {@code ::1}, {@code
     *     localhost}) needs no token, any other address does
     * @param port 0 to 65535; 0 picks a free port, read it with {@link AdminServer#port()}
     * @return this builder
     * @throws ConfigException if the port is out of range or the host blank
     */
    public Builder bind(String host, int port) {
      Objects.requireNonNull(host, "host");
      if (host.isBlank()) throw new ConfigException("admin bind host is blank");
      if (port < 0 || port > 65535)
        throw new ConfigException("admin bind port " + port + " is out of range 0..65535");
      this.host = host;
      this.port = port;
      return this;
    }

    /**
     * The address to listen on, as {@link AdminServer#parseAddress} reads it.
     *
     * @param address host and port
     * @return this builder
     */
    public Builder bind(InetSocketAddress address) {
      return bind(address.getHostString(), address.getPort());
    }

    /**
     * The bearer token every request but {@code /health/live}, {@code /health/ready} and the
     * dashboard's own files (which hold no data) must carry ({@code Authorization: Bearer TOKEN});
     * compared in constant time. Required to bind a non-loopback address.
     *
     * @param token at least {@value #MIN_TOKEN_LENGTH} characters, no white space
     * @return this builder
     * @throws ConfigException if shorter or with white space (the message does not repeat it)
     */
    public Builder token(String token) {
      checkToken(token);
      this.token = token;
      return this;
    }

    /**
     * Reads the bearer token from a file: its content without the trailing line break.
     *
     * @param file a file holding the token, readable by this process only
     * @return this builder
     * @throws ConfigException if the file cannot be read or the token is unfit (see {@link
     *     #token}); the message names the file, never the token
     */
    public Builder tokenFile(Path file) {
      String text;
      try {
        text = Files.readString(file, StandardCharsets.UTF_8).strip();
      } catch (IOException e) {
        throw new ConfigException("admin token file " + file + ": cannot be read: " + e);
      }
      if (text.isEmpty()) throw new ConfigException("admin token file " + file + " is empty");
      try {
        return token(text);
      } catch (ConfigException e) {
        throw new ConfigException("admin token file " + file + ": " + e.getMessage());
      }
    }

    /**
     * Serves {@code GET /metrics} from this registry, in the Prometheus text format; without one
     * that path answers 404.
     *
     * @param registry the registry the engine's meters are in ({@code WatukuyMetrics})
     * @return this builder
     */
    public Builder metrics(PrometheusMeterRegistry registry) {
      this.metrics = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /**
     * The engine's store, so that {@code /health/ready} probes it with one cheap read (a lease
     * lookup); without it the probe is an inspection, which reads every key.
     *
     * @param store the store the engine runs on; not closed by the server
     * @return this builder
     */
    public Builder store(StateStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /**
     * Serves the effects of this runtime (docs/effects.md, "Admin HTTP"): {@code GET
     * /admin/effects}, {@code GET /admin/effects/{name}}, {@code GET
     * /admin/effects/{name}/invocations/{position}}, {@code POST
     * /admin/effects/{name}/skip/{position}}, {@code POST /admin/effects/{name}/retry[/{position}]}
     * (docs/effects.md, "Retry now"), and the dashboard's Effects table. Without it those paths
     * answer 404. The effects module ({@code io.watukuy.effects}) is an optional dependency of this
     * one: add it to use this method.
     *
     * @param effects the runtime the engine's process runs; not closed by the server
     * @return this builder
     * @throws NullPointerException if {@code effects} is null
     */
    public Builder effects(io.watukuy.effects.Effects effects) {
      this.effects = Objects.requireNonNull(effects, "effects");
      return this;
    }

    /**
     * How long {@code /health/ready} waits for the store before answering 503.
     *
     * @param timeout positive; default {@link #DEFAULT_READY_TIMEOUT}
     * @return this builder
     * @throws ConfigException if not positive
     */
    public Builder readyTimeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero())
        throw new ConfigException("admin readyTimeout must be positive, but was " + timeout);
      this.readyTimeout = timeout;
      return this;
    }

    /**
     * More names clients may send in {@code Host}, besides the bound address (and {@code
     * localhost}, {@code 127.0.0.1}, {@code [::1]} on loopback): the DNS name a non-loopback server
     * is reached by. The port is added: give the name only.
     *
     * @param names host names or addresses
     * @return this builder
     */
    public Builder allowHosts(Collection<String> names) {
      for (String n : names) hosts.add(n.toLowerCase(java.util.Locale.ROOT));
      return this;
    }

    /**
     * Secret values never to appear in a response: each is replaced by {@code [redacted]} in every
     * form it takes, as the engine's {@link Watukuy.Builder#secrets} does for its errors.
     *
     * @param values the secrets (e.g. the config's {@code ${VARIABLE}} values)
     * @return this builder
     */
    public Builder secrets(Collection<String> values) {
      secrets.addAll(values);
      return this;
    }

    /**
     * Builds the server, not started.
     *
     * @return the server
     * @throws ConfigException if the bind address is not loopback and no token is set, or cannot be
     *     resolved
     */
    public AdminServer build() {
      InetAddress address;
      try {
        address = InetAddress.getByName(host);
      } catch (IOException e) {
        throw new ConfigException("admin bind host '" + host + "' cannot be resolved: " + e);
      }
      checkBind(address, host, port, token != null);
      Set<String> names = new LinkedHashSet<>(hosts);
      names.add(host.toLowerCase(java.util.Locale.ROOT));
      String literal = address.getHostAddress();
      names.add(literal.contains(":") ? "[" + literal + "]" : literal);
      if (address.isLoopbackAddress()) names.addAll(List.of("localhost", "127.0.0.1", "[::1]"));
      RequestGuard guard = new RequestGuard(names, address.isAnyLocalAddress(), token);
      Routes routes =
          new Routes(
              engine,
              guard,
              metrics,
              new Readiness(engine, store, readyTimeout),
              Watukuy.redaction(secrets),
              effects == null ? null : new EffectRoutes((io.watukuy.effects.Effects) effects));
      return new AdminServer(new InetSocketAddress(address, port), host, routes);
    }
  }
}
