package io.watukuy.sink.jdbc;

import io.watukuy.sink.Sink;
import io.watukuy.sink.SinkConfig;
import io.watukuy.sink.SinkProvider;

/**
 * Makes a {@link TableSink} from {@code sink: {type: table, ...}} (docs/sinks.md, "Database
 * tables"): keys {@code url}, {@code user}, {@code password}, {@code table}, {@code mode}, {@code
 * columns}, {@code onConflict}, {@code sameDatabase}, {@code format}; any other is refused.
 *
 * @since 0.2
 */
public final class TableSinkProvider implements SinkProvider {
  /** For {@link java.util.ServiceLoader}. */
  public TableSinkProvider() {}

  /**
   * {@code table}.
   *
   * @return the type
   */
  @Override
  public String type() {
    return "table";
  }

  /**
   * The sink of a section; with {@code sameDatabase: true} it writes through the store the caller
   * gave with {@link SinkConfig#withStore}.
   *
   * @throws io.watukuy.ConfigException for a missing or invalid setting, naming it
   */
  @Override
  public Sink create(SinkConfig config) {
    // No store yet is fine here: validate makes sinks without one; open() checks it is there.
    return new TableSink(TableSettings.of(config), config.store());
  }
}
