package io.watukuy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.watukuy.cli.ConfigReader.At;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A JSON document from the config whose strings are {@link Template}s: a request {@code body:} or
 * the {@code variables:} of a {@code graphql:} request (docs/config.md, "Request bodies"). Rendered
 * per request: a member or list element whose string holds a variable without a value is left out,
 * as a query parameter is; a string that is exactly {@code {{page}}} or {@code {{cursor.page}}}
 * renders as a JSON number; numbers, booleans and null are sent as written.
 */
final class JsonTemplate {
  // Always whole numbers: written as JSON numbers when a string is nothing but the placeholder.
  private static final Set<String> NUMERIC = Set.of("{{page}}", "{{cursor.page}}");

  // A JsonNode for a value node, a Template for a string, a Map or a List for containers.
  private final Object root;

  private JsonTemplate(Object root) {
    this.root = root;
  }

  /**
   * Reads the template at {@code at}; {@code ${ENV}} in its strings is read from the environment.
   *
   * @throws io.watukuy.ConfigException naming the file, line, poller and key of a string with an
   *     unknown variable or an unset environment variable
   */
  static JsonTemplate read(At at) {
    return new JsonTemplate(shape(at));
  }

  private static Object shape(At at) {
    JsonNode n = at.node;
    if (n.isTextual()) return at.template();
    if (n.isObject()) {
      Map<String, Object> members = new LinkedHashMap<>();
      for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
        String key = it.next();
        members.put(key, shape(at.child(key)));
      }
      return members;
    }
    if (n.isArray()) {
      List<Object> items = new ArrayList<>();
      for (int i = 0; i < n.size(); i++) items.add(shape(at.item(i)));
      return items;
    }
    return n;
  }

  /** Every variable name the document's strings hold, in document order. */
  List<String> names() {
    List<String> out = new ArrayList<>();
    names(root, out);
    return out;
  }

  private static void names(Object node, List<String> out) {
    if (node instanceof Template t) out.addAll(t.names());
    else if (node instanceof Map<?, ?> m) m.values().forEach(v -> names(v, out));
    else if (node instanceof List<?> l) l.forEach(v -> names(v, out));
  }

  /** Whether some string of the document holds {@code {{name}}}. */
  boolean uses(String name) {
    return uses(root, name);
  }

  private static boolean uses(Object node, String name) {
    if (node instanceof Template t) return t.uses(name);
    if (node instanceof Map<?, ?> m) return m.values().stream().anyMatch(v -> uses(v, name));
    if (node instanceof List<?> l) return l.stream().anyMatch(v -> uses(v, name));
    return false;
  }

  /**
   * The document with {@code vars}; the root itself is never left out (a root string whose variable
   * has no value renders as {@code ""}).
   */
  JsonNode render(Map<String, @Nullable String> vars) {
    JsonNode out = render(root, vars);
    return out == null ? TextNode.valueOf("") : out;
  }

  private static @Nullable JsonNode render(Object node, Map<String, @Nullable String> vars) {
    if (node instanceof Template t) {
      String text = t.render(vars, v -> v, true);
      if (text == null) return null;
      if (NUMERIC.contains(t.toString().trim()) && text.matches("-?\\d{1,18}")) {
        return JsonNodeFactory.instance.numberNode(Long.parseLong(text));
      }
      return TextNode.valueOf(text);
    }
    if (node instanceof Map<?, ?> m) {
      ObjectNode o = JsonNodeFactory.instance.objectNode();
      m.forEach(
          (k, v) -> {
            JsonNode value = render(v, vars);
            if (value != null) o.set((String) k, value);
          });
      return o;
    }
    if (node instanceof List<?> l) {
      ArrayNode a = JsonNodeFactory.instance.arrayNode();
      for (Object v : l) {
        JsonNode value = render(v, vars);
        if (value != null) a.add(value);
      }
      return a;
    }
    return (JsonNode) node;
  }
}
