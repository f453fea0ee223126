package io.watukuy.cli;

import io.watukuy.ConfigException;
import io.watukuy.sink.Sink;
import io.watukuy.sink.SinkConfig;
import io.watukuy.sink.SinkProvider;
import java.nio.file.Path;

/**
 * {@code sink: {type: file, path: PATH, format: envelope | cloudevents}}: one JSON line per event
 * appended to a file (docs/sinks.md, "stdout and file"), PATH relative to the config's folder;
 * {@code output: file:PATH} is its shorthand. Found with {@link java.util.ServiceLoader} like every
 * sink.
 *
 * @since 0.2
 */
public final class FileSinkProvider implements SinkProvider {
  /** For {@link java.util.ServiceLoader}. */
  public FileSinkProvider() {}

  /**
   * The type.
   *
   * @return {@code file}
   */
  @Override
  public String type() {
    return "file";
  }

  /**
   * A sink appending to {@code path}; the file is created when the sink opens, its folder must
   * exist already (watukuy creates no folders).
   *
   * @param config the section: {@code path} (required), {@code format} (default {@code envelope})
   * @return the sink, not yet open
   * @throws ConfigException for a missing path, a folder that does not exist, another key or an
   *     unknown format, naming the setting
   */
  @Override
  public Sink create(SinkConfig config) {
    config.only("path");
    config.required("path", "the file events are appended to");
    Path path = config.path("path");
    try {
      Stores.folderOf("", path);
    } catch (ConfigException e) {
      throw config.error("path", e.getMessage());
    }
    return OutputSink.file(path, config.format());
  }
}
