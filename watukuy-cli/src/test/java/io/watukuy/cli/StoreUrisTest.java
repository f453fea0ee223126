package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store URIs (docs/stores.md, "Store URIs (YAML and `--store`)") from the command line, against
 * the machine's PostgreSQL (127.0.0.1:5432, database {@code test}), MariaDB (127.0.0.1:3306,
 * database {@code test}) and Redis (127.0.0.1:6379). Each test uses a schema, table prefix or key
 * prefix of its own and removes it.
 */
class StoreUrisTest {
  static final String PG = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
  static final String MARIA = "jdbc:mariadb://127.0.0.1:3306/test?user=root";

  @TempDir Path dir;
  private HttpServer vendor;
  private final String suffix = HexFormat.of().formatHex(randomBytes());
  private final String schema = "wk_cli_" + suffix;
  private final String redisPrefix = "watukuy-test:cli:" + suffix + ":";
  private final String mariaPrefix = "wk_cli_" + suffix + "_";

  @BeforeEach
  void startVendor() throws IOException {
    vendor = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    vendor.createContext(
        "/orders",
        ex -> {
          byte[] body =
              """
          [{"id":1,"updatedAt":"2024-05-01T10:00:00Z"},{"id":2,"updatedAt":"2024-05-01T10:05:00Z"}]"""
                  .getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().set("Content-Type", "application/json");
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    vendor.start();
  }

  @AfterEach
  void cleanUp() throws Exception {
    vendor.stop(0);
    try (Connection c = DriverManager.getConnection(PG);
        Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
    try (Connection c = DriverManager.getConnection(MARIA);
        Statement s = c.createStatement()) {
      for (String table : mariaTables()) s.execute("DROP TABLE `" + table + "`");
    }
    RedisClient client = RedisClient.create("redis://127.0.0.1:6379/0");
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      List<String> keys = c.sync().keys(redisPrefix + "*");
      if (!keys.isEmpty()) c.sync().del(keys.toArray(new String[0]));
    } finally {
      client.shutdown();
    }
  }

  private String config(String store) {
    return store
        + """

        pollers:
          - name: orders
            request: { url: "http://127.0.0.1:%d/orders" }
            response: { items: "" }
            identity: /id
            version: /updatedAt
            cursor: { strategy: snapshotDiff }
        """
            .formatted(vendor.getAddress().getPort());
  }

  @Test
  void aPostgresStoreKeepsStateBetweenRuns() throws Exception {
    Path file =
        write(
            config(
                "store: { uri: \"postgres:"
                    + PG
                    + "\", schema: "
                    + schema
                    + ", tablePrefix: cli_ }"));

    Result first = watukuy("run", file.toString(), "--once");
    assertThat(first.exit).as(first.err).isZero();
    assertThat(first.out.lines()).hasSize(2).allMatch(l -> l.contains("\"type\":\"created\""));
    Result second = watukuy("run", file.toString(), "--once");
    assertThat(second.exit).as(second.err).isZero();
    assertThat(second.out).isEmpty();
    assertThat(tables()).contains("cli_pollers").allMatch(t -> t.startsWith("cli_"));
  }

  @Test
  void aMariaDbStoreKeepsStateBetweenRuns() throws Exception {
    Path file =
        write(
            config("store: { uri: \"mariadb:" + MARIA + "\", tablePrefix: " + mariaPrefix + " }"));

    Result first = watukuy("run", file.toString(), "--once");
    assertThat(first.exit).as(first.err).isZero();
    assertThat(first.out.lines()).hasSize(2).allMatch(l -> l.contains("\"type\":\"created\""));
    Result second = watukuy("run", file.toString(), "--once");
    assertThat(second.exit).as(second.err).isZero();
    assertThat(second.out).isEmpty();
    assertThat(mariaTables())
        .contains(mariaPrefix + "pollers", mariaPrefix + "journal")
        .hasSize(13);
    Result paused = watukuy("pause", file.toString(), "orders");
    assertThat(paused.exit).as(paused.err).isZero();
  }

  @Test
  void aRedisStoreKeepsStateBetweenRuns() {
    Path file =
        write(
            config(
                "store: { uri: \"redis://127.0.0.1:6379/0\", prefix: \"" + redisPrefix + "\" }"));

    Result first = watukuy("run", file.toString(), "--once");
    assertThat(first.exit).as(first.err).isZero();
    assertThat(first.out.lines()).hasSize(2);
    Result second = watukuy("run", file.toString(), "--once");
    assertThat(second.exit).as(second.err).isZero();
    assertThat(second.out).isEmpty();
    Result paused = watukuy("pause", file.toString(), "orders");
    assertThat(paused.exit).as(paused.err).isZero();
  }

  @Test
  void migrateTakesEachStoreUri() throws SQLException {
    Path sqlite = dir.resolve("m.db");
    assertThat(watukuy("migrate", "--store", "sqlite:" + sqlite).exit).isZero();
    assertThat(Files.isRegularFile(sqlite)).isTrue();
    assertThat(watukuy("migrate", "--store", "redis://127.0.0.1:6379/0").exit).isZero();
    Path file =
        write(
            config(
                "store: { uri: \"postgres:"
                    + PG
                    + "&password=hunter2\", schema: "
                    + schema
                    + " }"));
    Result pg = watukuy("migrate", file.toString());
    assertThat(pg.exit).as(pg.err).isZero();
    assertThat(pg.err).isEqualTo("watukuy: postgres:" + PG + "&password=***: migrated\n");
    assertThat(tables()).contains("watukuy_pollers");
    Path maria =
        write(
            config(
                "store: { uri: \"mariadb:"
                    + MARIA
                    + "&password=\", tablePrefix: "
                    + mariaPrefix
                    + " }"));
    Result m = watukuy("migrate", maria.toString());
    assertThat(m.exit).as(m.err).isZero();
    assertThat(m.err).isEqualTo("watukuy: mariadb:" + MARIA + "&password=***: migrated\n");
    assertThat(mariaTables()).hasSize(13);
  }

  @Test
  void optionsOfAnotherKindOfStoreAreConfigErrors() {
    assertThat(validate("store: { uri: \"postgres:" + PG + "\", busyTimeoutMs: 500 }"))
        .isEqualTo(
            "watukuy: watukuy.yaml:1: store: a postgres: store takes no busyTimeoutMs (sqlite: only)\n");
    assertThat(validate("store: { uri: sqlite:x.db, schema: s }"))
        .isEqualTo(
            "watukuy: watukuy.yaml:1: store: a sqlite: store takes no schema (postgres: only)\n");
    assertThat(validate("store: { uri: \"redis://127.0.0.1:6379/0\", tablePrefix: t_ }"))
        .isEqualTo(
            "watukuy: watukuy.yaml:1: store: a redis: store takes no tablePrefix (sqlite:, postgres: and"
                + " mariadb: only)\n");
    assertThat(validate("store: { uri: \"mariadb:" + MARIA + "\", schema: s }"))
        .isEqualTo(
            "watukuy: watukuy.yaml:1: store: a mariadb: store takes no schema (postgres: only)\n");
  }

  @Test
  void aBadSchemaOrPrefixIsRefusedBeforeAnythingRuns() {
    assertThat(validate("store: { uri: \"postgres:" + PG + "\", schema: \"x; DROP TABLE y\" }"))
        .startsWith("watukuy: watukuy.yaml:1: store: ")
        .contains("schema")
        .contains("x; DROP TABLE y");
    assertThat(validate("store: { uri: \"redis://127.0.0.1:6379/0\", prefix: \"a{b}\" }"))
        .startsWith("watukuy: watukuy.yaml:1: store: ")
        .contains("prefix")
        .contains("a{b}");
    assertThat(validate("store: \"postgres:mysql://127.0.0.1/x?password=hunter2\""))
        .startsWith("watukuy: watukuy.yaml:1: store: ")
        .contains("JDBC URL")
        .doesNotContain("hunter2");
    assertThat(validate("store: { uri: \"mariadb:" + MARIA + "\", tablePrefix: \"x`; DROP\" }"))
        .startsWith("watukuy: watukuy.yaml:1: store: ")
        .contains("tablePrefix")
        .contains("x`; DROP");
    assertThat(validate("store: \"mariadb:jdbc:mysql://127.0.0.1/x?password=hunter2\""))
        .startsWith("watukuy: watukuy.yaml:1: store: ")
        .contains("mariadb: is followed by a JDBC URL")
        .doesNotContain("hunter2");
    // user:password@host is read by neither driver, which would quote the password in its errors
    assertThat(validate("store: \"mariadb:jdbc:mariadb://u1:s3cret-pw@127.0.0.1:3306/test\""))
        .startsWith("watukuy: watukuy.yaml:1: store: ")
        .contains("does not read a user or password before the host")
        .doesNotContain("s3cret-pw");
    assertThat(validate("store: \"postgres:jdbc:postgresql://u1:s3cret-pw@127.0.0.1/test\""))
        .startsWith("watukuy: watukuy.yaml:1: store: ")
        .contains("does not read a user or password before the host")
        .doesNotContain("s3cret-pw");
    Result userInfo =
        watukuy("migrate", "--store", "mariadb:jdbc:mariadb://u1:s3cret-pw@127.0.0.1:3306/test");
    assertThat(userInfo.exit).isEqualTo(2);
    assertThat(userInfo.err).doesNotContain("s3cret-pw");
    Result noUri = watukuy("migrate", "--store", "mysql://127.0.0.1/x");
    assertThat(noUri.exit).isEqualTo(2);
    assertThat(noUri.err).contains("mariadb:JDBC-URL");
  }

  @Test
  void aStoreServerThatIsDownFailsTheRunWithOneLineNamingItAndNoPassword() throws IOException {
    // A refused port fails each attempt at once, but the pool tries again until its connection
    // timeout (10 s by default): a short one keeps the failure and its line the same.
    Duration timeout = Stores.poolConnectionTimeout;
    Stores.poolConnectionTimeout = Duration.ofMillis(500);
    try {
      storeServerDown();
    } finally {
      Stores.poolConnectionTimeout = timeout;
    }
  }

  private void storeServerDown() throws IOException {
    int closed;
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    Path pg =
        write(
            config(
                "store: \"postgres:jdbc:postgresql://127.0.0.1:"
                    + closed
                    + "/test?user=postgres&password=hunter2&connectTimeout=2\""));
    Result r = watukuy("run", pg.toString(), "--once");
    assertThat(r.exit).isEqualTo(1);
    assertThat(r.err).contains("127.0.0.1:" + closed + "/test").doesNotContain("hunter2");

    Path maria =
        write(
            config(
                "store: \"mariadb:jdbc:mariadb://127.0.0.1:"
                    + closed
                    + "/test?user=root&password=hunter2&connectTimeout=2000\""));
    Result m = watukuy("run", maria.toString(), "--once");
    assertThat(m.exit).isEqualTo(1);
    assertThat(m.err)
        .contains("mariadb store 127.0.0.1:" + closed + "/test")
        .doesNotContain("hunter2");

    Path redis = write(config("store: \"redis://:hunter2@127.0.0.1:" + closed + "/0\""));
    Result rr = watukuy("run", redis.toString(), "--once");
    assertThat(rr.exit).isEqualTo(1);
    assertThat(rr.err).contains("127.0.0.1:" + closed).doesNotContain("hunter2");
  }

  private String validate(String store) {
    Result r = watukuy("validate", write(config(store)).toString());
    assertThat(r.exit).isEqualTo(2);
    return r.err.replace(dir.resolve("watukuy.yaml").toString(), "watukuy.yaml");
  }

  private List<String> tables() throws SQLException {
    List<String> names = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(PG);
        ResultSet rs = c.getMetaData().getTables(null, schema, "%", new String[] {"TABLE"})) {
      while (rs.next()) names.add(rs.getString("TABLE_NAME"));
    }
    return names;
  }

  private List<String> mariaTables() throws SQLException {
    List<String> names = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(MARIA);
        ResultSet rs =
            c.createStatement()
                .executeQuery(
                    "SELECT table_name FROM information_schema.tables"
                        + " WHERE table_schema = 'test' AND table_name LIKE '"
                        + mariaPrefix.replace("_", "\\\\_")
                        + "%'")) {
      while (rs.next()) names.add(rs.getString(1));
    }
    return names;
  }

  private Path write(String yaml) {
    try {
      return Files.writeString(dir.resolve("watukuy.yaml"), yaml);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  record Result(int exit, String out, String err) {}

  private static Result watukuy(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.<String, String>of()::get);
    return new Result(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private static byte[] randomBytes() {
    byte[] b = new byte[4];
    ThreadLocalRandom.current().nextBytes(b);
    return b;
  }
}
