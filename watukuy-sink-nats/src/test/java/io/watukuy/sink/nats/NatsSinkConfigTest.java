package io.watukuy.sink.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.watukuy.ConfigException;
import io.watukuy.PollerKey;
import io.watukuy.sink.Destination;
import io.watukuy.sink.Sink;
import io.watukuy.sink.SinkConfig;
import io.watukuy.sink.SinkProvider;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code sink: {type: nats}} as the YAML gives it (docs/sinks.md, "NATS JetStream"): the provider
 * found by ServiceLoader, every bad setting named with its value (credentials never), subjects
 * rendered and checked, and a stream that cannot serve the sink refused at open, naming it.
 */
class NatsSinkConfigTest {
  @RegisterExtension static final TestNats nats = TestNats.local();

  private static Sink create(Map<String, ?> settings) {
    Map<String, Object> all = new LinkedHashMap<>();
    all.put("type", "nats");
    all.putAll(settings);
    return new NatsSinkProvider().create(SinkConfig.of(all, Path.of(".")));
  }

  @Test
  void serviceLoaderFindsTheProviderOfTypeNats() {
    assertThat(ServiceLoader.load(SinkProvider.class))
        .anySatisfy(p -> assertThat(p.type()).isEqualTo("nats"));
  }

  @Test
  void theDefaultsPublishToWatukuySourceInStreamWatukuy() {
    Sink sink = create(Map.of("url", "127.0.0.1:4222"));
    assertThat(sink.name())
        .isEqualTo("nats nats://127.0.0.1:4222 stream WATUKUY subject watukuy.{{source}}");
  }

  @Test
  void anUnknownKeyIsRefusedNamingItAndTheKnownOnes() {
    assertThatThrownBy(() -> create(Map.of("url", TestNats.URL, "topic", "x")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            "sink.topic: unknown key (expected one of ackTimeout, createStream,");
  }

  @Test
  void aMissingUrlIsRefusedSayingWhatItIs() {
    assertThatThrownBy(() -> create(Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage("sink: missing url (the NATS server, nats://host:4222)");
  }

  @Test
  void credentialsInTheUrlNeverReachTheNameOrAnError() {
    Sink sink = create(Map.of("url", "nats://alice:hunter22@127.0.0.1:4222"));
    assertThat(sink.name())
        .startsWith("nats nats://***@127.0.0.1:4222 ")
        .doesNotContain("hunter22");
    assertThatThrownBy(() -> create(Map.of("url", "http://alice:hunter22@127.0.0.1:4222")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sink.url: 'http://***@127.0.0.1:4222' is not a NATS URL")
        .hasMessageNotContaining("hunter22");
  }

  @Test
  void aSubjectWithAWildcardOrAnEmptyTokenIsRefused() {
    assertThatThrownBy(() -> create(Map.of("url", TestNats.URL, "subject", "orders.*")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sink.subject: 'orders.*' holds the wildcard '*'");
    assertThatThrownBy(() -> create(Map.of("url", TestNats.URL, "subject", "orders..{{source}}")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sink.subject: 'orders..{{source}}' has an empty token");
    assertThatThrownBy(() -> create(Map.of("url", TestNats.URL, "subject", "{{source}}.x")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("must start with a fixed token");
    assertThatThrownBy(() -> create(Map.of("url", TestNats.URL, "subject", "a.{{identity}}")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sink.subject: '{{identity}}' cannot name a destination");
  }

  @Test
  void aStreamNameWithADotOrABadDurationIsRefusedNamingTheValue() {
    assertThatThrownBy(() -> create(Map.of("url", TestNats.URL, "stream", "a.b")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("sink.stream: 'a.b' is not a stream name");
    assertThatThrownBy(() -> create(Map.of("url", TestNats.URL, "duplicateWindow", "0s")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("sink.duplicateWindow: '0s' must be longer than 0");
    assertThatThrownBy(() -> create(Map.of("url", TestNats.URL, "ackTimeout", "soon")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("sink.ackTimeout: 'soon' is not a duration (ms, s, m, h, d)");
  }

  @Test
  void anEmptyPartitionLeavesItsTokenOutAndAPartitionFillsIt() {
    Destination d = Destination.parse("watukuy.{{source}}.{{partition}}");
    assertThat(Subjects.render(d, PollerKey.of("orders"))).isEqualTo("watukuy.orders");
    assertThat(Subjects.render(d, new PollerKey("orders", "eu"))).isEqualTo("watukuy.orders.eu");
    assertThat(Subjects.streamFilter(d)).isEqualTo("watukuy.>");
    assertThatThrownBy(() -> Subjects.render(d, new PollerKey("orders", "e u")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("subject 'watukuy.orders.e u'")
        .hasMessageContaining("space");
  }

  @Test
  void aStreamSubjectCoversAFilterOnlyWhenItCapturesEverySubjectOfIt() {
    assertThat(Subjects.covers("watukuy.>", "watukuy.>")).isTrue();
    assertThat(Subjects.covers(">", "watukuy.>")).isTrue();
    assertThat(Subjects.covers("watukuy.*", "watukuy.>")).isFalse();
    assertThat(Subjects.covers("watukuy.*", "watukuy.orders")).isTrue();
    assertThat(Subjects.covers("watukuy.orders", "watukuy.>")).isFalse();
    assertThat(Subjects.covers("other.>", "watukuy.orders")).isFalse();
  }

  @Test
  void headerValuesArePercentEncodedAsTheNatsBindingSays() {
    assertThat(NatsHeaders.percentEncode("Euro € 😀")).isEqualTo("Euro%20%E2%82%AC%20%F0%9F%98%80");
    assertThat(NatsHeaders.percentEncode("a\"b%c")).isEqualTo("a%22b%25c");
    assertThat(NatsHeaders.percentEncode("/watukuy/orders")).isEqualTo("/watukuy/orders");
  }

  @Test
  void createStreamFalseWithNoStreamIsAConfigErrorAtOpenNamingSinkAndStream() {
    String stream = nats.newStream("missing");
    Sink sink =
        create(
            Map.of(
                "url",
                TestNats.URL,
                "stream",
                stream,
                "createStream",
                false,
                "subject",
                TestNats.prefix(stream) + ".{{source}}"));
    assertThatThrownBy(sink::open)
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("sink " + sink.name() + ": stream '" + stream + "' does not exist")
        .hasMessageContaining("createStream is false");
  }

  @Test
  void anExistingStreamThatDoesNotCaptureTheSubjectsIsAConfigErrorAtOpen() throws Exception {
    String stream = nats.newStream("narrow");
    String prefix = TestNats.prefix(stream);
    nats.jsm()
        .addStream(
            StreamConfiguration.builder()
                .name(stream)
                .subjects(prefix + ".orders")
                .storageType(StorageType.Memory)
                .build());
    Sink sink =
        create(Map.of("url", TestNats.URL, "stream", stream, "subject", prefix + ".{{source}}"));
    assertThatThrownBy(sink::open)
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("stream '" + stream + "' has subjects [" + prefix + ".orders]")
        .hasMessageContaining("do not capture '" + prefix + ".>'");
  }

  @Test
  void aCreatedStreamHasFileStorageTheFilterAndTheDuplicateWindow() throws Exception {
    String stream = nats.newStream("created");
    String prefix = TestNats.prefix(stream);
    Sink sink =
        create(
            Map.of(
                "url",
                TestNats.URL,
                "stream",
                stream,
                "subject",
                prefix + ".{{source}}",
                "duplicateWindow",
                "90s"));
    sink.open();
    sink.close();
    StreamConfiguration config = nats.jsm().getStreamInfo(stream).getConfiguration();
    assertThat(config.getStorageType()).isEqualTo(StorageType.File);
    assertThat(config.getSubjects()).containsExactly(prefix + ".>");
    assertThat(config.getDuplicateWindow()).isEqualTo(java.time.Duration.ofSeconds(90));
  }
}
