package io.watukuy.cli;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * Where a value is in a JSON document, as written in the config: a JSON Pointer when it starts with
 * {@code /}, {@code ""} for the document itself, otherwise a dot path ({@code meta.id}).
 */
record Locator(String spec, JsonPointer pointer) {

  static Locator parse(String spec) {
    if (spec.isEmpty() || spec.startsWith("/")) return new Locator(spec, JsonPointer.compile(spec));
    StringBuilder p = new StringBuilder();
    for (String part : spec.split("\\.", -1)) p.append('/').append(YamlTree.escape(part));
    return new Locator(spec, JsonPointer.compile(p.toString()));
  }

  /** The node found, or a missing node. */
  JsonNode find(JsonNode root) {
    return root.at(pointer);
  }

  /**
   * The same place as a dot path, as the cursor strategies take it; null if it has no such form.
   */
  String dotPath() {
    if (!spec.startsWith("/")) return spec;
    StringBuilder b = new StringBuilder();
    JsonPointer p = pointer;
    while (p != null && !p.matches()) {
      if (b.length() > 0) b.append('.');
      b.append(p.getMatchingProperty());
      p = p.tail();
    }
    return b.toString();
  }

  @Override
  public String toString() {
    return spec;
  }
}
