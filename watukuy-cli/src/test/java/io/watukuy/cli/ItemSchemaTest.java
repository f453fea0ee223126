package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code schema:} checks every item against a JSON Schema: an item that fails is parked as invalid
 * with the schema's messages and the rest of the page flows (docs/operations.md, "Invalid items");
 * a schema that cannot be read is a config error, and a remote {@code $ref} is never fetched.
 */
class ItemSchemaTest {
  @TempDir Path dir;

  private static final String ITEMS =
      "[{\"id\":1,\"email\":\"ada@example.com\"},{\"id\":2},{\"id\":3,\"email\":7}]";

  private String config(JsonServer vendor, String schema) throws IOException {
    return Files.writeString(
            dir.resolve("watukuy.yaml"),
            """
            store: sqlite:watukuy.db
            pollers:
              - name: contacts
                request: { url: "%s" }
                response: { items: "" }
                identity: /id
                cursor: { strategy: snapshotDiff }
                schema: %s
            """
                .formatted(vendor.url("/contacts"), schema))
        .toString();
  }

  @Test
  void itemsThatFailAnInlineSchemaAreParkedWithItsMessagesAndTheRestFlow() throws IOException {
    try (JsonServer vendor = new JsonServer().answer(ITEMS)) {
      String config =
          config(
              vendor,
              "{ type: object, required: [email], properties: { email: { type: string } } }");

      CliRun run = CliRun.of("run", config, "--once");
      CliRun parked = CliRun.of("parked", "list", config, "contacts");

      assertThat(run.exit()).as(run.stderr()).isZero();
      assertThat(run.stdout().lines()).hasSize(1).allMatch(l -> l.contains("ada@example.com"));
      assertThat(parked.stdout().lines()).hasSize(2);
      assertThat(parked.stdout()).contains("invalid", "email").contains("required", "string");

      // Checked again with the poller's identity and schema, which only CONFIG has.
      String id = parked.stdout().lines().findFirst().orElseThrow().split("\t")[1];
      CliRun byStore =
          CliRun.of(
              "parked", "retry", "--store", "sqlite:" + dir.resolve("watukuy.db"), "contacts", id);
      assertThat(byStore.exit()).isEqualTo(2);
      assertThat(byStore.stderr()).contains("parked retry of an invalid item needs CONFIG");
      assertThat(CliRun.of("parked", "list", config, "contacts").stdout().lines()).hasSize(2);
    }
  }

  @Test
  void aSchemaFileIsReadRelativeToTheConfigsFolder() throws IOException {
    Files.writeString(
        dir.resolve("contact.schema.json"), "{\"type\":\"object\",\"required\":[\"email\"]}");
    try (JsonServer vendor = new JsonServer().answer(ITEMS)) {
      String config = config(vendor, "contact.schema.json");

      CliRun run = CliRun.of("run", config, "--once");

      assertThat(run.exit()).as(run.stderr()).isZero();
      assertThat(run.stdout().lines()).hasSize(2); // 1 and 3 have an email; 2 is parked
    }
  }

  @Test
  void aSchemaThatCannotBeReadIsAConfigErrorNamingThePollerAndTheField() throws IOException {
    try (JsonServer vendor = new JsonServer().answer(ITEMS)) {
      CliRun missing = CliRun.of("validate", config(vendor, "nope.json"));
      CliRun notASchema = CliRun.of("validate", config(vendor, "{ type: 12 }"));

      assertThat(missing.exit()).isEqualTo(2);
      assertThat(missing.stderr())
          .contains("poller contacts", "schema", "nope.json", "no such file");
      assertThat(notASchema.exit()).isEqualTo(2);
      assertThat(notASchema.stderr()).contains("poller contacts", "schema", "not a JSON Schema");
      assertThat(vendor.requests.get()).isZero();
    }
  }

  @Test
  void aRemoteRefIsNeverFetched() throws IOException {
    try (JsonServer vendor = new JsonServer().answer(ITEMS);
        JsonServer elsewhere = new JsonServer().answer("{\"type\":\"object\"}")) {
      String config = config(vendor, "{ $ref: \"" + elsewhere.url("/remote.schema.json") + "\" }");

      CliRun run = CliRun.of("run", config, "--once");

      assertThat(elsewhere.requests.get()).isZero();
      assertThat(run.exit()).isEqualTo(2);
      assertThat(run.stderr()).contains("poller contacts", "schema");
    }
  }
}
