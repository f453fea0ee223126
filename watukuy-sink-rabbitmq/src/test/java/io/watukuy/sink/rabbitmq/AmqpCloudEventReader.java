package io.watukuy.sink.rabbitmq;

import com.rabbitmq.client.GetResponse;
import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.cloudevents.core.data.BytesCloudEventData;
import io.cloudevents.core.message.impl.BaseGenericBinaryMessageReaderImpl;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Reads a binary-mode message back with the CloudEvents SDK's own binding machinery: the attributes
 * from the {@code cloudEvents:} headers, {@code datacontenttype} from the {@code content_type}
 * property, {@code data} from the body (the AMQP binding, §3.1).
 */
final class AmqpCloudEventReader extends BaseGenericBinaryMessageReaderImpl<String, Object> {
  private static final String PREFIX = "cloudEvents:";
  private static final String CONTENT_TYPE = "content-type";

  private final Map<String, Object> headers;
  private final String contentType;

  private AmqpCloudEventReader(SpecVersion version, GetResponse message) {
    super(version, BytesCloudEventData.wrap(message.getBody()));
    this.headers = message.getProps().getHeaders();
    this.contentType = message.getProps().getContentType();
  }

  /** The event, or the SDK's exception when the message is not a valid CloudEvent. */
  static CloudEvent read(GetResponse message) {
    Object version = message.getProps().getHeaders().get(PREFIX + "specversion");
    if (version == null) throw new IllegalArgumentException("no cloudEvents:specversion header");
    return new AmqpCloudEventReader(SpecVersion.parse(version.toString()), message).toEvent();
  }

  @Override
  protected boolean isContentTypeHeader(String key) {
    return key.equals(CONTENT_TYPE);
  }

  @Override
  protected boolean isCloudEventsHeader(String key) {
    return key.startsWith(PREFIX) && key.length() > PREFIX.length();
  }

  @Override
  protected String toCloudEventsKey(String key) {
    return key.substring(PREFIX.length());
  }

  @Override
  protected void forEachHeader(BiConsumer<String, Object> fn) {
    if (contentType != null) fn.accept(CONTENT_TYPE, contentType);
    headers.forEach(fn);
  }

  @Override
  protected String toCloudEventsValue(Object value) {
    return value.toString();
  }
}
