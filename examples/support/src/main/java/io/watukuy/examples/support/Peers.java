package io.watukuy.examples.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The third-party servers pinned by {@code examples/peers/package-lock.json} (json-server 0.17.4,
 * pouchdb-server 4.2.0, oauth2-mock-server 9.3.0). {@link #bin(String)} runs {@code
 * examples/peers/install} once per JVM: it installs them with {@code npm ci --ignore-scripts} into
 * a cache folder outside the source tree ({@code WATUKUY_PEERS_CACHE}, default {@code
 * ~/.cache/watukuy-peers}) unless the cache's stamp already matches the lock file's SHA-256.
 */
public final class Peers {
  private static @Nullable Path bin;

  private Peers() {}

  /**
   * The executable {@code name} from the installed {@code node_modules/.bin}.
   *
   * @param name {@code json-server}, {@code pouchdb-server} or {@code oauth2-mock-server}
   * @return its absolute path
   * @throws IllegalStateException if Node.js or npm is missing, the install fails or takes more
   *     than 10 minutes, or {@code name} is not installed; the message carries the script's stderr
   */
  public static synchronized Path bin(String name) {
    if (bin == null) {
      bin = install();
    }
    Path exe = bin.resolve(name);
    if (!Files.isExecutable(exe)) {
      throw new IllegalStateException(exe + " is not installed by examples/peers/install");
    }
    return exe;
  }

  /**
   * The installed {@code node_modules} folder, for a script of an example that requires a pinned
   * package (as {@code NODE_PATH}).
   *
   * @return its absolute path
   * @throws IllegalStateException as for {@link #bin(String)}
   */
  public static synchronized Path nodeModules() {
    if (bin == null) {
      bin = install();
    }
    return bin.getParent();
  }

  /**
   * The repository's root: the nearest folder at or above the working directory that holds {@code
   * examples/peers/install} (Maven runs each module's tests in the module's folder).
   *
   * @return the root folder
   * @throws IllegalStateException if there is none
   */
  public static Path repositoryRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("examples/peers/install"))) {
        return p;
      }
    }
    throw new IllegalStateException(
        "no examples/peers/install at or above " + Path.of("").toAbsolutePath());
  }

  private static Path install() {
    Path script = repositoryRoot().resolve("examples/peers/install");
    try {
      Path errors = Files.createTempFile("watukuy-peers", ".log");
      Process p =
          new ProcessBuilder("bash", script.toString())
              .redirectError(errors.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!p.waitFor(10, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IllegalStateException(script + " took more than 10 minutes");
      }
      String err = Files.readString(errors);
      Files.delete(errors);
      if (p.exitValue() != 0 || out.isEmpty()) {
        throw new IllegalStateException(script + " exited " + p.exitValue() + ": " + err);
      }
      return Path.of(out);
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + script + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + script, e);
    }
  }
}
