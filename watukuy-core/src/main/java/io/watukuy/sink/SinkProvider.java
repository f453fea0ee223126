package io.watukuy.sink;

/**
 * Makes a {@link Sink} of one {@code type} from its configuration: what the command line's {@code
 * sink: {type: kafka, ...}} finds with {@link java.util.ServiceLoader} (docs/sinks.md). A sink
 * module registers its provider in {@code META-INF/services/io.watukuy.sink.SinkProvider} (and
 * {@code provides} in its module descriptor).
 *
 * @since 0.2
 */
public interface SinkProvider {
  /**
   * The {@code type} this provider makes, e.g. {@code kafka}: lowercase letters and digits.
   *
   * @return the type name
   */
  String type();

  /**
   * A sink from its settings. Reads every key it knows and refuses the others ({@link
   * SinkConfig#only}); does not connect (that is {@link Sink#open()}).
   *
   * @param config the {@code sink:} section, {@code type} included
   * @return a sink, not yet open
   * @throws io.watukuy.ConfigException for a missing or invalid setting, naming it (via {@link
   *     SinkConfig#error})
   */
  Sink create(SinkConfig config);
}
