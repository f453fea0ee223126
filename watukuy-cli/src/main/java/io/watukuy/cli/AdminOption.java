package io.watukuy.cli;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.watukuy.ConfigException;
import io.watukuy.admin.AdminServer;
import io.watukuy.effects.Effects;
import io.watukuy.micrometer.WatukuyMetrics;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * {@code run --admin HOST:PORT [--admin-token-file PATH]} (docs/operations.md, "Admin HTTP"):
 * checked before anything opens, so that a bad address, an unreadable token file or a non-loopback
 * address without a token is a usage error (exit 2), and a token file its group or others may read
 * is a warning; the server itself is started once the engine exists, with the engine's meters in a
 * Prometheus registry for {@code /metrics}.
 */
final class AdminOption {
  private final InetSocketAddress address;
  private final @Nullable String token;
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final WatukuyMetrics metrics = new WatukuyMetrics(registry);

  private AdminOption(InetSocketAddress address, @Nullable String token) {
    this.address = address;
    this.token = token;
  }

  /**
   * Checks the options, and warns once when the token file is readable by others.
   *
   * @param admin the {@code --admin} text
   * @param tokenFile the {@code --admin-token-file} path, or null
   * @param warn takes one line naming the file (never the token) when its POSIX permissions let its
   *     group or others read it; not called on a file system without POSIX permissions
   * @return the checked option
   * @throws ConfigException naming the option and the value: the caller makes it a usage error
   */
  static AdminOption check(String admin, @Nullable Path tokenFile, Consumer<String> warn) {
    InetSocketAddress a = AdminServer.parseAddress("--admin", admin);
    String token = tokenFile == null ? null : token(tokenFile);
    if (tokenFile != null) {
      String loose = looseAccess(tokenFile);
      if (loose != null)
        warn.accept(
            "--admin-token-file '"
                + tokenFile
                + "' is readable by "
                + loose
                + "; anyone who reads it can drive the admin API (chmod 600 '"
                + tokenFile
                + "')");
    }
    InetAddress resolved;
    try {
      resolved = InetAddress.getByName(a.getHostString());
    } catch (IOException e) {
      throw new ConfigException(
          "--admin '" + admin + "': host " + a.getHostString() + " cannot be resolved");
    }
    try {
      AdminServer.checkBind(resolved, a.getHostString(), a.getPort(), token != null);
    } catch (ConfigException e) {
      throw new ConfigException("--admin '" + admin + "': " + e.getMessage());
    }
    return new AdminOption(a, token);
  }

  /**
   * Who besides the owner may read the file: {@code "its group"}, {@code "others"}, {@code "its
   * group and others"}, or null when nobody may, or when the file system has no POSIX permissions
   * (the check is skipped there rather than guessed).
   */
  static @Nullable String looseAccess(Path file) {
    Set<PosixFilePermission> perms;
    try {
      perms = Files.getPosixFilePermissions(file);
    } catch (UnsupportedOperationException | IOException e) {
      return null;
    }
    boolean group = perms.contains(PosixFilePermission.GROUP_READ);
    boolean others = perms.contains(PosixFilePermission.OTHERS_READ);
    if (group && others) return "its group and others";
    if (group) return "its group";
    return others ? "others" : null;
  }

  private static String token(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new ConfigException(
          "--admin-token-file '"
              + file
              + "': cannot be read ("
              + e.getClass().getSimpleName()
              + ")");
    }
    if (text.isEmpty()) throw new ConfigException("--admin-token-file '" + file + "' is empty");
    try {
      AdminServer.checkToken(text);
    } catch (ConfigException e) {
      throw new ConfigException("--admin-token-file '" + file + "': " + e.getMessage());
    }
    return text;
  }

  /** The listener that feeds {@code /metrics}; give it to the engine. */
  WatukuyMetrics metrics() {
    return metrics;
  }

  /**
   * Starts the server over a session's engine.
   *
   * @param secrets the config's secret values, never to appear in an answer
   * @return the running server; close it after the engine stopped
   * @throws java.io.UncheckedIOException when the address cannot be bound (in use)
   */
  AdminServer start(Session s, Set<String> secrets, @Nullable Effects effects) {
    metrics.declare(s.pollers).watch(s.engine);
    AdminServer.Builder b =
        AdminServer.builder(s.engine)
            .bind(address)
            .store(s.store)
            .metrics(registry)
            .secrets(secrets);
    if (token != null) b.token(token);
    // The config's effects on /admin/effects and the dashboard (docs/effects.md, "Admin HTTP").
    if (effects != null) b.effects(effects);
    AdminServer server = b.build();
    server.start();
    return server;
  }

  /** Whether requests need the bearer token, for the start line. */
  boolean hasToken() {
    return token != null;
  }
}
