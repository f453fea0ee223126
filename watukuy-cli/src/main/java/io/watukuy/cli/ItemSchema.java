package io.watukuy.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaException;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.util.ArrayList;
import java.util.List;

/**
 * A poller's {@code schema:} (docs/config.md, "A poller"): a JSON Schema every item is checked
 * against before it is diffed; an item that fails it is parked as invalid with the messages, and
 * the rest of the page flows (docs/operations.md, "Invalid items"). Draft 2020-12 unless the schema
 * names another with {@code $schema}. Remote {@code $ref}s are never fetched: a config must not
 * make the poller depend on a third server, nor reach one the operator did not name.
 */
final class ItemSchema {
  // The meta-schemas come from the validator's own jar; nothing is fetched from the network.
  private static final SchemaRegistry REGISTRY =
      SchemaRegistry.withDefaultDialect(
          SpecificationVersion.DRAFT_2020_12,
          b -> b.schemaLoader(loader -> loader.fetchRemoteResources(false)));

  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** At most this many messages per item: the first ones say what is wrong. */
  private static final int MAX_PROBLEMS = 10;

  private final Schema schema;

  private ItemSchema(Schema schema) {
    this.schema = schema;
  }

  /**
   * The schema of {@code text}.
   *
   * @throws IllegalArgumentException when the text is not a JSON Schema, with the validator's
   *     reason
   */
  static ItemSchema of(String text) {
    try {
      JsonNode node = MAPPER.readTree(text);
      // A schema is checked against its meta-schema first: the validator alone takes { type: 12 }.
      String dialect =
          node.path("$schema").isTextual()
              ? node.get("$schema").textValue()
              : SpecificationVersion.DRAFT_2020_12.getDialectId();
      List<Error> wrong = REGISTRY.getSchema(SchemaLocation.of(dialect)).validate(node);
      if (!wrong.isEmpty()) throw new IllegalArgumentException(wrong.get(0).toString());
      Schema s = REGISTRY.getSchema(text);
      s.initializeValidators(); // refs resolve now, so a bad one is a config error
      return new ItemSchema(s);
    } catch (SchemaException | IllegalArgumentException | JsonProcessingException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /** What is wrong with {@code item}, one line each; empty when it conforms. */
  List<String> problems(JsonNode item) {
    List<Error> errors = schema.validate(item);
    List<String> out = new ArrayList<>(Math.min(errors.size(), MAX_PROBLEMS));
    for (Error e : errors) {
      if (out.size() == MAX_PROBLEMS) {
        out.add("and " + (errors.size() - MAX_PROBLEMS) + " more");
        break;
      }
      out.add("schema: " + e);
    }
    return out;
  }
}
