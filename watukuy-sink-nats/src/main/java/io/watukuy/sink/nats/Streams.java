package io.watukuy.sink.nats;

import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import io.watukuy.ConfigException;
import java.io.IOException;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The stream a {@link NatsSink} publishes to, found or created at {@link NatsSink#open()}
 * (docs/sinks.md, "NATS JetStream"): an existing stream must capture the template's subjects; a
 * missing one is created (file storage, the subject filter, the duplicate window) unless {@code
 * createStream} is false, which makes it a {@link ConfigException}.
 */
final class Streams {
  /** JetStream's error code for "stream not found". */
  static final int STREAM_NOT_FOUND = 10059;

  private final String sink;
  private final NatsSinkSettings settings;
  private final String filter;
  private final NatsServerUrl url;

  Streams(String sink, NatsSinkSettings settings, String filter, NatsServerUrl url) {
    this.sink = sink;
    this.settings = settings;
    this.filter = filter;
    this.url = url;
  }

  /**
   * Checks a stream name: JetStream refuses spaces, dots, wildcards and path separators in it.
   *
   * @param name the {@code stream} setting
   * @return null when valid, else what is wrong
   */
  static @Nullable String checkName(String name) {
    if (name.isEmpty()) return "is empty";
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c <= ' ' || c == 0x7f || c == '.' || c == '*' || c == '>' || c == '/' || c == '\\')
        return "'"
            + name
            + "' is not a stream name: no spaces, control characters, '.', '*', '>', '/' or '\\'";
    }
    return null;
  }

  /**
   * Finds the stream and checks its subjects, or creates it.
   *
   * @param jsm the connection's stream management
   * @throws ConfigException when it can never work as configured, naming the sink and the stream
   * @throws IOException when the server does not answer: retried at the next open
   */
  void ensure(JetStreamManagement jsm) throws IOException {
    StreamInfo info;
    try {
      info = jsm.getStreamInfo(settings.stream());
    } catch (JetStreamApiException e) {
      if (e.getApiErrorCode() != STREAM_NOT_FOUND)
        throw new ConfigException(
            "sink "
                + sink
                + ": cannot read stream '"
                + settings.stream()
                + "': "
                + url.redact(e.getMessage()));
      create(jsm);
      return;
    }
    List<String> subjects = info.getConfiguration().getSubjects();
    for (String s : subjects) if (Subjects.covers(s, filter)) return;
    throw new ConfigException(
        "sink "
            + sink
            + ": stream '"
            + settings.stream()
            + "' has subjects "
            + subjects
            + ", which do not capture '"
            + filter
            + "' (the subjects of template '"
            + settings.subject()
            + "'): add it to the stream, or name another stream");
  }

  private void create(JetStreamManagement jsm) throws IOException {
    if (!settings.createStream())
      throw new ConfigException(
          "sink "
              + sink
              + ": stream '"
              + settings.stream()
              + "' does not exist and createStream is false: create it with subject '"
              + filter
              + "', or set createStream: true");
    StreamConfiguration config =
        StreamConfiguration.builder()
            .name(settings.stream())
            .subjects(filter)
            .storageType(StorageType.File)
            .duplicateWindow(settings.duplicateWindow())
            .build();
    try {
      jsm.addStream(config);
    } catch (JetStreamApiException e) {
      throw new ConfigException(
          "sink "
              + sink
              + ": cannot create stream '"
              + settings.stream()
              + "' with subject '"
              + filter
              + "': "
              + url.redact(e.getMessage()));
    }
  }
}
