package io.watukuy.store.postgres;

import io.watukuy.ConfigException;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The validated settings of one {@link PostgresStore}.
 *
 * @param schema the PostgreSQL schema that holds the tables; created by {@code migrate()} when
 *     missing
 * @param tablePrefix prepended to every table and index name
 * @param closeClient whether {@code close()} also closes the data source when it is {@link
 *     AutoCloseable}
 */
record PostgresOptions(String schema, String tablePrefix, boolean closeClient) {

  /**
   * Schema and prefix are inlined into SQL text (identifiers cannot be bound as parameters), so
   * only lower-case plain identifiers are accepted, and they are double-quoted everywhere besides.
   * Lower case keeps the quoted name equal to the unquoted one, so hand-written queries need no
   * quotes.
   */
  static final Pattern IDENTIFIER = Pattern.compile("^[a-z_][a-z0-9_]*$");

  /** PostgreSQL truncates names longer than NAMEDATALEN - 1 = 63 bytes. */
  static final int MAX_SCHEMA_LENGTH = 63;

  /**
   * 63 bytes less the longest suffix the schema appends ({@code outbox_status_seq}, 17 characters),
   * so that no table, index or constraint name is truncated.
   */
  static final int MAX_PREFIX_LENGTH = 63 - PostgresSchema.LONGEST_SUFFIX;

  PostgresOptions {
    checkSchema(schema);
    checkTablePrefix(tablePrefix);
  }

  static void checkSchema(String schema) {
    Objects.requireNonNull(schema, "schema");
    if (!IDENTIFIER.matcher(schema).matches()
        || schema.length() > MAX_SCHEMA_LENGTH
        || schema.startsWith("pg_")) {
      throw new ConfigException(
          "schema must be a lower-case SQL identifier of 1 to "
              + MAX_SCHEMA_LENGTH
              + " letters, digits and '_', not starting with a digit or 'pg_' ("
              + IDENTIFIER.pattern()
              + "), but was '"
              + schema
              + "'");
    }
    if (schema.equals("information_schema")) {
      // A system schema: pg_dump leaves it out, so the store's tables would miss every backup.
      throw new ConfigException("schema must not be a system schema, but was '" + schema + "'");
    }
  }

  static void checkTablePrefix(String tablePrefix) {
    Objects.requireNonNull(tablePrefix, "tablePrefix");
    if (!IDENTIFIER.matcher(tablePrefix).matches() || tablePrefix.length() > MAX_PREFIX_LENGTH) {
      throw new ConfigException(
          "tablePrefix must be a lower-case SQL identifier of 1 to "
              + MAX_PREFIX_LENGTH
              + " letters, digits and '_', not starting with a digit ("
              + IDENTIFIER.pattern()
              + "), but was '"
              + tablePrefix
              + "'");
    }
  }
}
