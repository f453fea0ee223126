package io.watukuy.cli;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.watukuy.ConfigException;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * A YAML document as a Jackson tree plus the line of every node, keyed by JSON Pointer, so that a
 * config error can name the line it is about. A member's line is the line of its key.
 */
final class YamlTree {
  private static final YAMLFactory YAML = YAMLFactory.builder().build();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final JsonNode root;
  private final Map<String, Integer> lines;

  private YamlTree(JsonNode root, Map<String, Integer> lines) {
    this.root = root;
    this.lines = lines;
  }

  JsonNode root() {
    return root;
  }

  /** The line of the node at {@code pointer}, or of its nearest ancestor that has one. */
  int line(String pointer) {
    String p = pointer;
    while (true) {
      Integer line = lines.get(p);
      if (line != null) return line;
      if (p.isEmpty()) return 1;
      p = p.substring(0, p.lastIndexOf('/'));
    }
  }

  /**
   * Parses {@code text}; {@code file} is only used in messages.
   *
   * @throws ConfigException for text that is not YAML, a duplicate key, or an empty document
   */
  static YamlTree parse(String text, String file) {
    Map<String, Integer> lines = new HashMap<>();
    try (JsonParser p = YAML.createParser(text)) {
      if (p.nextToken() == null) throw new ConfigException(file + ":1: the file is empty");
      JsonNode root = read(p, "", lines, file);
      return new YamlTree(root, lines);
    } catch (JsonProcessingException e) {
      throw new ConfigException(syntaxError(e, file), e);
    } catch (IOException e) {
      throw new ConfigException(file + ": cannot read: " + e.getMessage(), e);
    }
  }

  /**
   * {@code FILE:LINE: problem} for text the YAML parser rejects, in words about the file rather
   * than the parser's states ("while parsing a block mapping ... expected <block end>"), at the
   * line where the fix goes: an unclosed quote or bracket is named where it opens.
   */
  static String syntaxError(JsonProcessingException e, String file) {
    MarkedYAMLException yaml = null;
    for (Throwable t = e; t != null && yaml == null; t = t.getCause()) {
      if (t instanceof MarkedYAMLException m) yaml = m;
    }
    if (yaml == null || yaml.getProblemMark() == null) {
      int line = e.getLocation() == null ? 1 : Math.max(1, e.getLocation().getLineNr());
      return file
          + ":"
          + line
          + ": not valid YAML: "
          + e.getOriginalMessage().lines().findFirst().orElse("").strip();
    }
    String problem = String.valueOf(yaml.getProblem());
    String context = yaml.getContext() == null ? "" : yaml.getContext();
    int line = yaml.getProblemMark().getLine() + 1;
    Integer opened = yaml.getContextMark() == null ? null : yaml.getContextMark().getLine() + 1;
    String text;
    if (problem.contains("\\t") || problem.contains("(TAB)")) {
      text = "a tab character; YAML indents with spaces only";
    } else if (context.contains("quoted scalar") && opened != null) {
      line = opened;
      text = "the quoted value that starts here is never closed (a missing \" or ')";
    } else if ((context.contains("flow mapping") || context.contains("flow sequence"))
        && opened != null) {
      String[] brackets =
          context.contains("flow mapping") ? new String[] {"{", "}"} : new String[] {"[", "]"};
      text =
          "the "
              + brackets[0]
              + " on this line is not closed with "
              + brackets[1]
              + (opened == line ? "" : " before line " + line)
              + " (or a comma is missing)";
      line = opened;
    } else if (problem.startsWith("mapping values are not allowed")) {
      text =
          "a ':' where no key can start: indent this line like the keys it belongs with,"
              + " or quote a value that contains ': '";
    } else if (problem.startsWith("expected <block end>") && problem.contains("<scalar>")) {
      text =
          "unexpected text after a value: quote the whole value, or indent this line like the keys it belongs with";
    } else if (problem.startsWith("expected <block end>")) {
      text =
          "this line is indented differently from the lines it belongs with"
              + (opened != null && opened != line
                  ? " (the block that starts on line " + opened + ")"
                  : "");
    } else if (problem.startsWith("could not find expected ':'") && opened != null) {
      line = opened;
      text = "a key without ':' (each line of a map is key: value)";
    } else {
      text =
          "not valid YAML: "
              + problem.replaceAll("\\s+", " ").strip()
              + (opened == null
                  ? ""
                  : " (" + context.strip() + " that starts on line " + opened + ")");
    }
    return file + ":" + line + ": " + text;
  }

  private static JsonNode read(
      JsonParser p, String pointer, Map<String, Integer> lines, String file) throws IOException {
    lines.putIfAbsent(pointer, line(p));
    JsonToken t = p.currentToken();
    switch (t) {
      case START_OBJECT -> {
        ObjectNode object = NODES.objectNode();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String name = p.currentName();
          String child = pointer + "/" + escape(name);
          if (object.has(name)) {
            throw new ConfigException(file + ":" + line(p) + ": " + name + ": duplicate key");
          }
          lines.put(child, line(p));
          p.nextToken();
          object.set(name, read(p, child, lines, file));
        }
        return object;
      }
      case START_ARRAY -> {
        ArrayNode array = NODES.arrayNode();
        int i = 0;
        while (p.nextToken() != JsonToken.END_ARRAY) {
          array.add(read(p, pointer + "/" + i++, lines, file));
        }
        return array;
      }
      case VALUE_STRING -> {
        return NODES.textNode(p.getText());
      }
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
        return p.getNumberType() == JsonParser.NumberType.BIG_DECIMAL
                || p.getNumberType() == JsonParser.NumberType.DOUBLE
                || p.getNumberType() == JsonParser.NumberType.FLOAT
            ? NODES.numberNode(p.getDecimalValue())
            : NODES.numberNode(p.getBigIntegerValue());
      }
      case VALUE_TRUE -> {
        return NODES.booleanNode(true);
      }
      case VALUE_FALSE -> {
        return NODES.booleanNode(false);
      }
      case VALUE_NULL -> {
        return NODES.nullNode();
      }
      default -> throw new ConfigException(file + ":" + line(p) + ": unexpected YAML token " + t);
    }
  }

  private static int line(JsonParser p) {
    return Math.max(1, p.currentTokenLocation().getLineNr());
  }

  static String escape(String name) {
    return name.replace("~", "~0").replace("/", "~1");
  }
}
