package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.watukuy.testing.NatsServerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NATS sink's credentials from {@code ${ENV}} and {@code ${file:PATH}} (issue 18, §7;
 * docs/sinks.md, "NATS JetStream"), against a nats-server this test starts with authentication: the
 * right secret publishes, a wrong one is a config error (exit 2) naming the sink, and neither shows
 * in any output, {@code --verbose} included.
 */
class NatsSinkSecretsTest {
  private static final String TOKEN = "n4ts-t0ken-right";
  private static final String WRONG = "n4ts-t0ken-wrong";
  private static final String PASSWORD = "n4ts-pa55-right";

  @TempDir Path dir;
  private JsonServer vendor;

  @BeforeEach
  void start() throws IOException {
    vendor = new JsonServer().answer("[{\"id\":1},{\"id\":2}]");
  }

  @AfterEach
  void stop() {
    vendor.close();
  }

  private String config(String url, String auth) throws IOException {
    String yaml =
        """
        store: sqlite:state.db
        pollers:
          - name: orders
            request: { url: "%s" }
            response: { items: "" }
            identity: /id
            cursor: { strategy: snapshotDiff }
            sink: { type: nats, url: "%s", ackTimeout: 3s, %s }
        """
            .formatted(vendor.url("/orders"), url, auth);
    return Files.writeString(dir.resolve("watukuy.yaml"), yaml).toString();
  }

  @Test
  void aTokenFromTheEnvironmentPublishesAndAWrongOneIsAConfigErrorNamingTheSink() throws Exception {
    try (NatsServerProcess server = NatsServerProcess.withToken(dir, TOKEN)) {
      String config = config(server.url(), "token: \"${NATS_TOKEN}\"");

      CliRun wrong =
          CliRun.withEnv(Map.of("NATS_TOKEN", WRONG), "run", config, "--once", "--verbose");
      CliRun right = CliRun.withEnv(Map.of("NATS_TOKEN", TOKEN), "run", config, "--once");

      assertThat(wrong.exit()).as(wrong.stderr()).isEqualTo(Main.USAGE);
      assertThat(wrong.stderr())
          .contains("sink nats " + server.url() + " stream WATUKUY subject watukuy.{{source}}: ")
          .contains("the server refused the credentials")
          .doesNotContain(WRONG)
          .doesNotContain(TOKEN);
      assertThat(wrong.stdout()).doesNotContain(WRONG);
      assertThat(right.exit()).as(right.stderr()).isZero();
      assertThat(right.stderr() + right.stdout()).doesNotContain(TOKEN);
      try (Connection c =
          Nats.connect(Options.builder().server(server.url()).token(TOKEN.toCharArray()).build())) {
        // The vendor's two items, each one created event.
        assertThat(c.jetStreamManagement().getStreamInfo("WATUKUY").getStreamState().getMsgCount())
            .isEqualTo(2);
      }
    }
  }

  @Test
  void aPasswordFromAFilePublishesAndNeverShows() throws Exception {
    Files.writeString(dir.resolve("nats-password.txt"), PASSWORD + "\n");
    try (NatsServerProcess server = NatsServerProcess.withUser(dir, "watukuy", PASSWORD)) {
      String config =
          config(server.url(), "user: watukuy, password: \"${file:nats-password.txt}\"");

      CliRun run = CliRun.of("run", config, "--once", "--verbose");

      assertThat(run.exit()).as(run.stderr()).isZero();
      assertThat(run.stderr() + run.stdout()).doesNotContain(PASSWORD);
    }
  }
}
