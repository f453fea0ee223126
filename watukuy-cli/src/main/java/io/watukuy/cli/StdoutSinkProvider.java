package io.watukuy.cli;

import io.watukuy.sink.Sink;
import io.watukuy.sink.SinkConfig;
import io.watukuy.sink.SinkProvider;

/**
 * {@code sink: {type: stdout, format: envelope | cloudevents}}: one JSON line per event on standard
 * output (docs/sinks.md, "stdout and file"); {@code output: stdout} is its shorthand. Found with
 * {@link java.util.ServiceLoader} like every sink.
 *
 * @since 0.2
 */
public final class StdoutSinkProvider implements SinkProvider {
  /** For {@link java.util.ServiceLoader}. */
  public StdoutSinkProvider() {}

  /**
   * The type.
   *
   * @return {@code stdout}
   */
  @Override
  public String type() {
    return "stdout";
  }

  /**
   * A sink writing to {@link System#out} (the command line writes to its own stream), not yet open.
   *
   * @param config the section: {@code type} and {@code format} (default {@code envelope})
   * @return the sink
   * @throws io.watukuy.ConfigException for another key or an unknown format, naming it
   */
  @Override
  public Sink create(SinkConfig config) {
    config.only();
    return OutputSink.stdout(config.format());
  }
}
