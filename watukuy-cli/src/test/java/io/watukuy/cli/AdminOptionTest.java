package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run --admin}: mistakes are usage errors (exit 2) naming the option and the value, checked
 * in-process before anything opens; one daemon in its own JVM serves {@code /health/live} and the
 * documented meters on {@code /metrics}, then stops on SIGTERM.
 */
class AdminOptionTest {
  private static final Pattern ADMIN_LINE =
      Pattern.compile("watukuy: admin HTTP on http://127\\.0\\.0\\.1:(\\d+)");

  @TempDir Path dir;

  private Path config(int vendorPort) throws Exception {
    Path config = dir.resolve("watukuy.yaml");
    Files.writeString(
        config,
        """
        store: sqlite:watukuy.db
        pollers:
          - name: orders
            request: { url: "http://127.0.0.1:%d/orders" }
            response: { items: "" }
            identity: /id
            cursor: { strategy: snapshotDiff }
        """
            .formatted(vendorPort));
    return config;
  }

  /**
   * A token file its group or others may read is a warning naming the file, once, never the token;
   * 600 is silent. POSIX file systems only (the check is skipped elsewhere).
   */
  @Test
  void aTokenFileReadableByOthersIsWarnedOnceWithoutTheToken() throws Exception {
    Assumptions.assumeTrue(
        dir.getFileSystem().supportedFileAttributeViews().contains("posix"), "POSIX permissions");
    String token = "0123456789abcdef0123456789abcdef";
    Path file = dir.resolve("admin-token");
    Files.writeString(file, token + "\n");

    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    List<String> warnings = new ArrayList<>();
    AdminOption.check("127.0.0.1:0", file, warnings::add);
    assertThat(warnings)
        .containsExactly(
            "--admin-token-file '"
                + file
                + "' is readable by its group and others; anyone who reads it can drive the admin"
                + " API (chmod 600 '"
                + file
                + "')");
    assertThat(String.join("\n", warnings)).doesNotContain(token);

    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
    assertThat(AdminOption.looseAccess(file)).isEqualTo("its group");

    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    warnings.clear();
    AdminOption.check("127.0.0.1:0", file, warnings::add);
    assertThat(warnings).isEmpty();
  }

  @Test
  void aBadAdminOptionIsAUsageErrorNamingTheOptionAndValue() throws Exception {
    String config = config(9).toString();
    CliRun noPort = CliRun.of("run", config, "--admin", "127.0.0.1");
    assertThat(noPort.exit()).isEqualTo(2);
    assertThat(noPort.stderr())
        .contains("--admin '127.0.0.1': expected HOST:PORT such as 127.0.0.1:8080 or [::1]:8080");

    CliRun open = CliRun.of("run", config, "--admin", "0.0.0.0:8080");
    assertThat(open.exit()).isEqualTo(2);
    assertThat(open.stderr())
        .contains(
            "--admin '0.0.0.0:8080': admin bind address 0.0.0.0:8080 is not loopback: set a bearer"
                + " token (--admin-token-file), or bind 127.0.0.1");

    Path shortToken = dir.resolve("token");
    Files.writeString(shortToken, "abc\n");
    CliRun weak =
        CliRun.of(
            "run", config, "--admin", "0.0.0.0:8080", "--admin-token-file", shortToken.toString());
    assertThat(weak.exit()).isEqualTo(2);
    assertThat(weak.stderr())
        .contains("--admin-token-file '" + shortToken + "': admin token is 3 characters long")
        .doesNotContain("abc");

    CliRun missing =
        CliRun.of(
            "run",
            config,
            "--admin",
            "127.0.0.1:0",
            "--admin-token-file",
            dir.resolve("nope").toString());
    assertThat(missing.exit()).isEqualTo(2);
    assertThat(missing.stderr()).contains("--admin-token-file '" + dir.resolve("nope") + "'");

    CliRun once = CliRun.of("run", config, "--once", "--admin", "127.0.0.1:0");
    assertThat(once.exit()).isEqualTo(2);
    assertThat(once.stderr()).contains("--admin 127.0.0.1:0 serves a daemon");

    CliRun tokenAlone = CliRun.of("run", config, "--admin-token-file", shortToken.toString());
    assertThat(tokenAlone.exit()).isEqualTo(2);
    assertThat(tokenAlone.stderr()).contains("needs --admin");
    // Nothing was opened: the store file was never created.
    assertThat(dir.resolve("watukuy.db")).doesNotExist();
  }

  @Test
  void theDaemonServesLiveAndTheEngineMetersThenStops() throws Exception {
    HttpServer vendor = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    vendor.createContext(
        "/orders",
        ex -> {
          byte[] body = "[{\"id\":1},{\"id\":2}]".getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().set("Content-Type", "application/json");
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    vendor.start();
    Path err = dir.resolve("stderr");
    Process p =
        CliProcess.of(
                List.of(),
                "run",
                config(vendor.getAddress().getPort()).toString(),
                "--admin",
                "127.0.0.1:0")
            .redirectOutput(dir.resolve("stdout").toFile())
            .redirectError(err.toFile())
            .start();
    try {
      int port = -1;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(45);
      while (port < 0 && System.nanoTime() < deadline && p.isAlive()) {
        Matcher m = ADMIN_LINE.matcher(Files.readString(err));
        if (m.find()) port = Integer.parseInt(m.group(1));
        else Thread.sleep(100);
      }
      assertThat(port).as(Files.readString(err)).isPositive();
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> live =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/live"))
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(live.statusCode()).isEqualTo(200);
      assertThat(live.body()).isEqualTo("{\"status\":\"up\"}");
      // The first cycle commits two events; wait (bounded) for its end on /metrics.
      String metrics = "";
      while (System.nanoTime() < deadline && !metrics.contains("watukuy_poll_seconds_count")) {
        metrics =
            http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .body();
        Thread.sleep(100);
      }
      assertThat(metrics)
          .contains(
              "watukuy_events_total{lane=\"live\",partition=\"\",poller=\"orders\","
                  + "type=\"created\"} 2.0")
          .contains(
              "watukuy_poll_seconds_count{error=\"none\",lane=\"live\",outcome=\"success\","
                  + "partition=\"\",poller=\"orders\"}")
          // A number once the first cycle ended, even when an earlier scrape came during it.
          .containsPattern("watukuy_freshness_seconds\\{partition=\"\",poller=\"orders\"} \\d")
          .contains("watukuy_leases_lost_total{poller=\"orders\"} 0.0");
    } finally {
      p.destroy(); // SIGTERM: the daemon drains, closes the admin server and exits 0
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      vendor.stop(0);
    }
    assertThat(p.exitValue()).as(Files.readString(err)).isZero();
  }
}
