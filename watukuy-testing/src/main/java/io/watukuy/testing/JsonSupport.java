package io.watukuy.testing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;

/** The testing kit's JSON reader (the engine's mapper is internal). */
final class JsonSupport {
  static final ObjectMapper MAPPER = new ObjectMapper();

  private JsonSupport() {}

  static JsonNode tree(String json) {
    try {
      return MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
