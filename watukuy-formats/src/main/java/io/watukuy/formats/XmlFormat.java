package io.watukuy.formats;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.xml.XmlMapper;
import io.watukuy.BodyFormat;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.jspecify.annotations.Nullable;

/**
 * XML pages read with Jackson's XML mapper (docs/config.md, "response.format"). The tree has one
 * field, the root element's local name, so {@code <orders><order/>..</orders>} reads as {@code
 * {"orders": {"order": [...]}}} and {@code /orders/order} points at the orders. Elements and
 * attributes become fields (Jackson merges an attribute and a child of the same name), repeated
 * elements an array, the text of an element with attributes the field {@code ""}; namespace
 * prefixes are dropped. Values are strings.
 *
 * <p>A repeated element that occurs once reads as an object, not an array of one: {@link #withList}
 * names the pointers (the listing's {@code items}) whose element is always an array, of one element
 * when it occurs once and empty when it is absent or its parent is empty ({@code <orders/>}).
 *
 * <p>A document with a DTD ({@code <!DOCTYPE}) is refused, so neither external entities nor entity
 * expansion ("billion laughs") can happen; the StAX factory also has DTDs and external entities
 * turned off.
 *
 * <p>Named {@code xml}; reads {@code application/xml}, {@code text/xml} and every {@code +xml}
 * type. Immutable and thread-safe.
 *
 * @since 0.2
 */
public final class XmlFormat implements BodyFormat {

  private static final XMLInputFactory STAX = secureFactory();
  private static final XmlMapper MAPPER =
      XmlMapper.builder(new com.fasterxml.jackson.dataformat.xml.XmlFactory(STAX)).build();

  private final List<String> lists;

  /** The default XML format: no pointer is forced to a list. */
  public XmlFormat() {
    this(List.of());
  }

  private XmlFormat(List<String> lists) {
    this.lists = List.copyOf(lists);
  }

  /**
   * This format with one more pointer whose element always reads as an array.
   *
   * @param pointer a JSON Pointer into the tree, such as {@code /orders/order}; not empty
   * @return a new format
   * @throws IllegalArgumentException if {@code pointer} is not a JSON Pointer or is the root
   */
  public XmlFormat withList(String pointer) {
    JsonPointer p = JsonPointer.compile(Objects.requireNonNull(pointer, "pointer"));
    if (p.matches()) {
      throw new IllegalArgumentException(
          "a list pointer names an element, but was '" + pointer + "'");
    }
    List<String> more = new ArrayList<>(lists);
    more.add(pointer);
    return new XmlFormat(more);
  }

  /**
   * The pointers whose element always reads as an array.
   *
   * @return an unmodifiable list, in the order given
   */
  public List<String> lists() {
    return lists;
  }

  @Override
  public String name() {
    return "xml";
  }

  @Override
  public boolean reads(String mediaType) {
    return mediaType.equals("application/xml")
        || mediaType.equals("text/xml")
        || mediaType.endsWith("+xml");
  }

  @Override
  public JsonNode read(InputStream body, @Nullable Charset charset) throws IOException {
    @Nullable InputStream in = Text.nonEmpty(body);
    if (in == null) return MissingNode.getInstance();
    try {
      // A declared charset wins over the XML declaration (RFC 7303 section 3); without one the
      // parser reads the byte order mark and the declaration.
      XMLStreamReader xml =
          charset == null
              ? STAX.createXMLStreamReader(in)
              : STAX.createXMLStreamReader(BodyFormat.textReader(in, charset));
      String root = toRoot(xml);
      JsonNode content;
      try (JsonParser parser = MAPPER.getFactory().createParser(xml)) {
        content = MAPPER.readTree(parser);
      }
      ObjectNode tree = JsonNodeFactory.instance.objectNode();
      tree.set(root, content == null || content.isMissingNode() ? emptyElement() : content);
      for (String pointer : lists) asList(tree, pointer);
      return tree;
    } catch (XMLStreamException e) {
      throw new IOException(describe(e), e);
    } catch (JsonProcessingException e) {
      // Jackson wraps the StAX parser's own failure, which knows where it is.
      if (e.getCause() instanceof XMLStreamException x) throw new IOException(describe(x), e);
      throw new IOException(e.getOriginalMessage(), e);
    }
  }

  /** Moves to the root element, refusing a DTD on the way; returns the root's local name. */
  private static String toRoot(XMLStreamReader xml) throws XMLStreamException, IOException {
    while (xml.hasNext()) {
      int event = xml.next();
      if (event == XMLStreamConstants.DTD) {
        throw new IOException(
            "the document has a DTD (<!DOCTYPE ...>), which is refused: no external entities and"
                + " no entity expansion are read");
      }
      if (event == XMLStreamConstants.START_ELEMENT) return xml.getLocalName();
    }
    throw new IOException("the document has no root element");
  }

  /** The parser's problem without its own location suffix or prefix, after line and column. */
  private static String describe(XMLStreamException e) {
    String m = String.valueOf(e.getMessage());
    m = m.replaceFirst("^ParseError at \\[[^]]*]\\s*Message:\\s*", "");
    m = m.replaceFirst("\\s*at \\[row,col[^]]*]: \\[\\d+,\\d+]\\s*$", "");
    return where(e) + m.strip();
  }

  private static String where(XMLStreamException e) {
    if (e.getLocation() == null || e.getLocation().getLineNumber() <= 0) return "";
    return "line "
        + e.getLocation().getLineNumber()
        + ", column "
        + e.getLocation().getColumnNumber()
        + ": ";
  }

  /**
   * Makes the node at {@code pointer} an array: an object or value is wrapped, an absent one (or
   * one under an empty element) becomes an empty array. Parents that are empty elements become
   * objects; a parent that holds text is left alone (the pointer then finds nothing, as before).
   */
  private static void asList(ObjectNode tree, String pointer) {
    JsonPointer p = JsonPointer.compile(pointer);
    JsonNode node = tree;
    while (!p.tail().matches()) {
      if (!(node instanceof ObjectNode parent)) return;
      String name = p.getMatchingProperty();
      JsonNode child = parent.get(name);
      if (child == null || isEmptyElement(child)) {
        child = parent.putObject(name);
      }
      node = child;
      p = p.tail();
    }
    if (!(node instanceof ObjectNode parent)) return;
    String name = p.getMatchingProperty();
    JsonNode last = parent.get(name);
    if (last != null && last.isArray()) return;
    ArrayNode list = parent.putArray(name);
    if (last != null && !isEmptyElement(last)) list.add(last);
  }

  /** How Jackson reads {@code <orders/>} or {@code <orders></orders>}. */
  private static boolean isEmptyElement(JsonNode n) {
    return n.isNull()
        || (n.isTextual() && n.textValue().isBlank())
        || (n.isObject() && n.isEmpty());
  }

  private static JsonNode emptyElement() {
    return JsonNodeFactory.instance.objectNode();
  }

  private static XMLInputFactory secureFactory() {
    XMLInputFactory f = XMLInputFactory.newFactory();
    f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    f.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, true);
    return f;
  }

  @Override
  public String toString() {
    return "xml(lists " + lists + ")";
  }
}
