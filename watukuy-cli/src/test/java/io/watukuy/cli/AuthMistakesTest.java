package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mistakes in {@code auth:} and {@code auths:} that {@code validate} reports as {@code
 * FILE:LINE} (issue 19, "Done when"; docs/config.md, "auth"): a required key left out is an error
 * at the auth's line; a credential written into the file, and a named auth no poller uses, are
 * warnings at their own line, and the config still validates. (An unknown type, an undeclared name
 * and OAuth2 without a token URL are in AuthConfigTest; a body variable that does not exist in
 * RequestConfigErrorsTest; {@code next.url} with {@code hasMore} in NextUrlPagingTest.)
 */
class AuthMistakesTest {
  @TempDir Path dir;

  private static final String POLLER =
      """
        - name: orders
          auth: %s
          request: { url: "http://127.0.0.1:9/orders" }
          response: { items: "" }
          identity: /id
          cursor: { strategy: snapshotDiff }
      """;

  private CliRun validate(String yaml) throws IOException {
    Path file = dir.resolve("watukuy.yaml");
    Files.writeString(file, yaml);
    Files.writeString(dir.resolve("token.txt"), "t0ken-in-a-file\n");
    CliRun r = CliRun.withEnv(Map.of("ERP_TOKEN", "t0ken-from-env"), "validate", file.toString());
    return new CliRun(
        r.exit(),
        r.stdout().replace(file.toString(), "watukuy.yaml"),
        r.stderr().replace(file.toString(), "watukuy.yaml"));
  }

  @Test
  void anApiKeyWithoutANameIsAnErrorAtTheAuthsLine() throws IOException {
    CliRun r =
        validate(
            "store: memory\npollers:\n"
                + POLLER.formatted("{ type: apiKey, in: header, value: \"${ERP_TOKEN}\" }"));

    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.stderr())
        .isEqualTo("watukuy: watukuy.yaml:4: poller orders: auth: name: missing\n");
  }

  @Test
  void basicWithoutAPasswordIsAnErrorAtTheAuthsLine() throws IOException {
    CliRun r =
        validate(
            "store: memory\nauths:\n  erp:\n    type: basic\n    user: watukuy\npollers:\n"
                + POLLER.formatted("erp"));

    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.stderr()).isEqualTo("watukuy: watukuy.yaml:3: auths.erp: password: missing\n");
  }

  @Test
  void aCredentialWrittenInTheFileIsAWarningAtItsLineThatNeverQuotesIt() throws IOException {
    CliRun r =
        validate(
            "store: memory\n"
                + "auths:\n"
                + "  erp:\n"
                + "    type: basic\n"
                + "    user: watukuy\n"
                + "    password: hunter2-in-clear\n"
                + "pollers:\n"
                + POLLER.formatted("erp")
                + POLLER
                    .formatted("{ type: bearer, token: abc-in-clear }")
                    .replace("name: orders", "name: refunds"));

    assertThat(r.exit()).as(r.stderr()).isZero();
    assertThat(r.stderr())
        .isEqualTo(
            "watukuy: warning: watukuy.yaml:6: auths.erp.password: written in the file; read it"
                + " from the environment (\"${NAME}\") or a file (\"${file:PATH}\") so that it"
                + " stays out of the config and its copies\n"
                + "watukuy: warning: watukuy.yaml:15: poller refunds: auth.token: written in the"
                + " file; read it from the environment (\"${NAME}\") or a file (\"${file:PATH}\")"
                + " so that it stays out of the config and its copies\n");
    assertThat(r.stdout() + r.stderr()).doesNotContain("hunter2").doesNotContain("abc-in-clear");
  }

  @Test
  void aNamedAuthNoPollerUsesIsAWarningAtItsLine() throws IOException {
    CliRun r =
        validate(
            "store: memory\n"
                + "auths:\n"
                + "  erp: { type: bearer, token: \"${ERP_TOKEN}\" }\n"
                + "  crm: { type: bearer, token: \"${file:token.txt}\" }\n"
                + "pollers:\n"
                + POLLER.formatted("erp"));

    assertThat(r.exit()).as(r.stderr()).isZero();
    assertThat(r.stderr())
        .isEqualTo(
            "watukuy: warning: watukuy.yaml:4: auths.crm: no poller uses it (a poller names it"
                + " with auth: crm)\n");
  }

  @Test
  void credentialsFromTheEnvironmentOrAFileAllUsedValidateWithoutWarnings() throws IOException {
    CliRun r =
        validate(
            "store: memory\n"
                + "auths:\n"
                + "  erp: { type: bearer, token: \"${ERP_TOKEN}\" }\n"
                + "pollers:\n"
                + POLLER.formatted("erp")
                + POLLER
                    .formatted("{ type: bearer, token: \"${file:token.txt}\" }")
                    .replace("name: orders", "name: refunds"));

    assertThat(r.exit()).as(r.stderr()).isZero();
    assertThat(r.stderr()).isEmpty();
    assertThat(r.stdout()).isEqualTo("watukuy.yaml: ok, 2 poller(s)\n");
  }
}
