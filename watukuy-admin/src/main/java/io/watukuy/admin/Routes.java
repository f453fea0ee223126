package io.watukuy.admin;

import static io.watukuy.admin.Exchanges.JSON;
import static io.watukuy.admin.Exchanges.JSON_TYPE;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.watukuy.ConfigException;
import io.watukuy.Health;
import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import io.watukuy.Watukuy;
import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every endpoint of the admin server (docs/operations.md, "Admin HTTP"), behind the {@link
 * RequestGuard}. Failures answer {@code {"error": "..."}}: 400 for a request the engine refuses (an
 * unknown poller or partition, named), 404, 405, 413, and 503 when the store cannot be read.
 */
final class Routes implements HttpHandler, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);
  private static final Pattern POLLER_ACTION =
      Pattern.compile("/admin/pollers/([^/]+)/(pause|resume|trigger)");
  private static final Pattern EFFECT =
      Pattern.compile("/admin/effects/([^/]+)(?:/(invocations|skip)/([^/]+))?");
  private static final Pattern EFFECT_RETRY =
      Pattern.compile("/admin/effects/([^/]+)/retry(?:/([^/]+))?");
  private static final String PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final Watukuy engine;
  private final RequestGuard guard;
  private final @Nullable PrometheusMeterRegistry metrics;
  private final Readiness readiness;
  private final Function<@Nullable String, String> redact;
  private final ParkedRoutes parked;
  // Null without an effects runtime: then no class of the effects module is ever loaded.
  private final @Nullable EffectRoutes effects;
  private final @Nullable EffectRetryRoutes retry;

  Routes(
      Watukuy engine,
      RequestGuard guard,
      @Nullable PrometheusMeterRegistry metrics,
      Readiness readiness,
      Function<@Nullable String, String> redact,
      @Nullable EffectRoutes effects) {
    this.engine = engine;
    this.guard = guard;
    this.metrics = metrics;
    this.readiness = readiness;
    this.redact = redact;
    this.parked = new ParkedRoutes(engine);
    this.effects = effects;
    this.retry = effects == null ? null : new EffectRetryRoutes(effects);
  }

  void bound(int port) {
    guard.bound(port);
  }

  @Override
  public void handle(HttpExchange ex) throws IOException {
    String path = path(ex.getRequestURI());
    boolean api = !isStatic(path);
    Exchanges.secure(ex, api);
    try {
      String method = ex.getRequestMethod();
      boolean post = "POST".equals(method);
      // The dashboard's own files hold no data (the page asks for the token and sends it with
      // every API call), so a browser can load them where a bearer token is required.
      boolean open = !api || path.equals("/health/live") || path.equals("/health/ready");
      RequestGuard.Refusal refusal = guard.check(ex.getRequestHeaders(), post, open);
      if (refusal != null) {
        if (refusal.status() == 401) ex.getResponseHeaders().set("WWW-Authenticate", "Bearer");
        Exchanges.error(ex, refusal.status(), refusal.message(), redact);
        return;
      }
      route(ex, path, method);
    } catch (Exchanges.TooLarge e) {
      Exchanges.discard(ex);
      Exchanges.error(ex, 413, e.getMessage(), redact);
    } catch (ConfigException e) {
      Exchanges.error(ex, 400, e.getMessage(), redact);
    } catch (StoreException e) {
      Exchanges.error(ex, 503, "store unavailable: " + e.getMessage(), redact);
    } catch (IllegalStateException e) {
      Exchanges.error(ex, 503, e.getMessage(), redact);
    } catch (RuntimeException e) {
      LOG.warn("admin {} {} failed: {}", ex.getRequestMethod(), path, redact.apply(e.toString()));
      Exchanges.error(ex, 500, e.getClass().getSimpleName() + ": " + e.getMessage(), redact);
    }
  }

  /**
   * The path as requested. A request for {@code //admin/pollers} parses as the authority {@code
   * admin} and the path {@code /pollers}: the authority is put back, so that the answer names what
   * was asked for instead of another file.
   */
  static String path(URI uri) {
    String path = uri.getPath() == null ? "" : uri.getPath();
    if (uri.getScheme() == null && uri.getRawAuthority() != null)
      return "//" + uri.getAuthority() + path;
    return path;
  }

  private static boolean isStatic(String path) {
    return !path.startsWith("/health/")
        && !path.startsWith("/admin/")
        && !path.equals("/metrics")
        && !path.equals("/admin");
  }

  private void route(HttpExchange ex, String path, String method)
      throws IOException, Exchanges.TooLarge {
    Matcher action = POLLER_ACTION.matcher(path);
    if (action.matches()) {
      if (allow(ex, method, "POST")) pollerAction(ex, action.group(1), action.group(2));
      return;
    }
    Matcher retryPath = EFFECT_RETRY.matcher(path);
    if (retryPath.matches()) {
      effectRetry(ex, retryPath, method);
      return;
    }
    if (path.equals("/admin/effects") || path.startsWith("/admin/effects/")) {
      effectRoute(ex, path, method);
      return;
    }
    switch (path) {
      case "/health/live" -> {
        if (allow(ex, method, "GET")) json(ex, 200, "{\"status\":\"up\"}");
      }
      case "/health/ready" -> {
        if (allow(ex, method, "GET")) ready(ex);
      }
      case "/health/pollers" -> {
        if (allow(ex, method, "GET")) pollersHealth(ex);
      }
      case "/metrics" -> {
        if (allow(ex, method, "GET")) metrics(ex);
      }
      case "/admin/pollers" -> {
        if (allow(ex, method, "GET")) json(ex, 200, engine.inspect().toJson());
      }
      case "/admin/parked" -> {
        if (allow(ex, method, "GET")) json(ex, 200, parked.list(Exchanges.query(ex)));
      }
      case "/admin/parked/retry", "/admin/parked/discard" -> {
        if (allow(ex, method, "POST"))
          json(ex, 200, parked.change(path.endsWith("/retry"), Exchanges.body(ex)));
      }
      default -> {
        if (path.contains("//"))
          // Not collapsed: every route and the token check see the one path that is served.
          Exchanges.error(
              ex,
              404,
              "no such endpoint: " + path + " (an empty segment: write each / once)",
              redact);
        else if (isStatic(path)) staticFile(ex, path, method);
        else Exchanges.error(ex, 404, "no such endpoint: " + path, redact);
      }
    }
  }

  /** Answers 405 with {@code Allow} unless the method is the one the path takes (or HEAD). */
  private boolean allow(HttpExchange ex, String method, String allowed) throws IOException {
    if (method.equals(allowed) || ("GET".equals(allowed) && "HEAD".equals(method))) return true;
    ex.getResponseHeaders().set("Allow", "GET".equals(allowed) ? "GET, HEAD" : allowed);
    Exchanges.error(
        ex,
        405,
        method + " is not allowed on " + ex.getRequestURI().getPath() + "; use " + allowed,
        redact);
    return false;
  }

  /** The effects endpoints, or 404 saying how to get them when the server has no effects. */
  private void effectRoute(HttpExchange ex, String path, String method) throws IOException {
    Matcher m = EFFECT.matcher(path);
    if (!path.equals("/admin/effects") && !m.matches()) {
      Exchanges.error(ex, 404, "no such endpoint: " + path, redact);
      return;
    }
    boolean skip = m.matches() && "skip".equals(m.group(2));
    if (!allow(ex, method, skip ? "POST" : "GET")) return;
    if (effects == null) {
      Exchanges.error(
          ex, 404, "no effects here: this server was built without effects(Effects)", redact);
      return;
    }
    EffectRoutes.Reply reply;
    if (!m.matches()) reply = effects.list();
    else if (m.group(2) == null) reply = effects.show(m.group(1));
    else if (skip) reply = effects.skip(m.group(1), m.group(3), Exchanges.query(ex));
    else reply = effects.invocation(m.group(1), m.group(3), Exchanges.query(ex));
    json(ex, reply.status(), reply.body());
  }

  /**
   * {@code POST /admin/effects/{name}/retry[/{position}]} (docs/effects.md, "Retry now"), under the
   * same guard as skip: the token when one is set, else the admin header, and no foreign host.
   */
  private void effectRetry(HttpExchange ex, Matcher m, String method) throws IOException {
    if (!allow(ex, method, "POST")) return;
    if (retry == null) {
      Exchanges.error(
          ex, 404, "no effects here: this server was built without effects(Effects)", redact);
      return;
    }
    EffectRoutes.Reply reply =
        m.group(2) == null
            ? retry.all(m.group(1))
            : retry.one(m.group(1), m.group(2), Exchanges.query(ex));
    json(ex, reply.status(), reply.body());
  }

  private void json(HttpExchange ex, int status, String body) throws IOException {
    Exchanges.send(ex, status, JSON_TYPE, body, redact);
  }

  private void ready(HttpExchange ex) throws IOException {
    String problem = readiness.problem();
    ObjectNode n = JSON.createObjectNode();
    n.put("ready", problem == null);
    if (problem != null) n.put("error", problem);
    json(ex, problem == null ? 200 : 503, n.toString());
  }

  /**
   * 200 when every key is healthy, 503 with the reasons otherwise (docs/operations.md, "Health").
   */
  private void pollersHealth(HttpExchange ex) throws IOException {
    Health health = engine.health();
    json(ex, health.healthy() ? 200 : 503, health.toJson());
  }

  private void metrics(HttpExchange ex) throws IOException {
    if (metrics == null) {
      Exchanges.error(
          ex, 404, "no metrics registry: this server was built without metrics(registry)", redact);
      return;
    }
    Exchanges.send(ex, 200, PROMETHEUS_TYPE, metrics.scrape(), redact);
  }

  private void pollerAction(HttpExchange ex, String poller, String action) throws IOException {
    Map<String, String> query = Exchanges.query(ex);
    String partition = query.get("partition");
    PollerKey key = partition == null ? null : PollerKey.of(poller, partition);
    switch (action) {
      case "pause" -> {
        if (key == null) engine.pause(poller);
        else engine.pause(key);
      }
      case "resume" -> {
        if (key == null) engine.resume(poller);
        else engine.resume(key);
      }
      default -> {
        if (key == null) engine.trigger(poller);
        else engine.trigger(key);
      }
    }
    ObjectNode n = JSON.createObjectNode();
    n.put("poller", poller);
    if (partition == null) n.putNull("partition");
    else n.put("partition", partition);
    n.put("action", action);
    json(ex, 200, n.toString());
  }

  private void staticFile(HttpExchange ex, String path, String method) throws IOException {
    if (!allow(ex, method, "GET")) return;
    StaticFiles.File file = StaticFiles.find(path);
    if (file == null) {
      Exchanges.error(ex, 404, "no such file: " + path, redact);
      return;
    }
    ex.getResponseHeaders().set("Content-Type", file.type());
    ex.getResponseHeaders().set("Cache-Control", "no-cache");
    boolean head = "HEAD".equals(method);
    ex.sendResponseHeaders(200, head ? -1 : file.bytes().length);
    if (!head) ex.getResponseBody().write(file.bytes());
    ex.close();
  }

  @Override
  public void close() {
    readiness.close();
  }
}
