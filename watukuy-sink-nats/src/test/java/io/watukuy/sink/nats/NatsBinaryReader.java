package io.watukuy.sink.nats;

import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.cloudevents.core.data.BytesCloudEventData;
import io.cloudevents.core.message.impl.BaseGenericBinaryMessageReaderImpl;
import io.nats.client.impl.Headers;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * A NATS message in CloudEvents binary mode (NATS protocol binding 1.0.3, section 3.1) read with
 * the CloudEvents Java SDK's generic binary reader, which has no NATS binding of its own: headers
 * {@code ce-<attribute>}, percent-decoded, and the body as {@code data}. The SDK checks the
 * attributes (specversion, a URI {@code source}, an RFC 3339 {@code time}).
 */
final class NatsBinaryReader extends BaseGenericBinaryMessageReaderImpl<String, String> {
  private final Headers headers;

  private NatsBinaryReader(SpecVersion version, Headers headers, byte[] body) {
    super(version, BytesCloudEventData.wrap(body));
    this.headers = headers;
  }

  /** The event, or an exception from the SDK when the message is not a valid binary event. */
  static CloudEvent read(Headers headers, byte[] body) {
    String version = headers.getFirst("ce-specversion");
    if (version == null) throw new IllegalArgumentException("no ce-specversion header");
    return new NatsBinaryReader(SpecVersion.parse(decode(version)), headers, body).toEvent();
  }

  @Override
  protected boolean isContentTypeHeader(String key) {
    return key.equalsIgnoreCase("content-type");
  }

  @Override
  protected boolean isCloudEventsHeader(String key) {
    return key.toLowerCase(Locale.ROOT).startsWith("ce-");
  }

  @Override
  protected String toCloudEventsKey(String key) {
    return key.substring(3).toLowerCase(Locale.ROOT);
  }

  @Override
  protected void forEachHeader(BiConsumer<String, String> fn) {
    for (Map.Entry<String, List<String>> e : headers.entrySet())
      for (String v : e.getValue()) fn.accept(e.getKey(), v);
  }

  @Override
  protected String toCloudEventsValue(String value) {
    return decode(value);
  }

  /** One round of percent-decoding, UTF-8; '+' stays '+'. */
  static String decode(String value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '%' && i + 2 < value.length()) {
        out.write(Integer.parseInt(value.substring(i + 1, i + 3), 16));
        i += 2;
      } else {
        out.write(c);
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
