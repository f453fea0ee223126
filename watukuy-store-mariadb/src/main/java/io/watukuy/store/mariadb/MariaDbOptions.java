package io.watukuy.store.mariadb;

import io.watukuy.ConfigException;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The validated settings of one {@link MariaDbStore}.
 *
 * @param tablePrefix prepended to every table name
 * @param closeClient whether {@code close()} also closes the data source when it is {@link
 *     AutoCloseable}
 */
record MariaDbOptions(String tablePrefix, boolean closeClient) {

  /**
   * The prefix is inlined into SQL text (identifiers cannot be bound as parameters), so only a
   * lower-case plain identifier is accepted, and it is back-quoted everywhere besides. Lower case
   * keeps table names the same whatever the server's {@code lower_case_table_names}.
   */
  static final Pattern IDENTIFIER = Pattern.compile("^[a-z_][a-z0-9_]*$");

  /**
   * MariaDB names a table with at most 64 characters; the longest suffix is {@code validators} (10
   * characters). Index names belong to their table and carry no prefix.
   */
  static final int MAX_PREFIX_LENGTH = 64 - MariaDbSchema.LONGEST_SUFFIX;

  MariaDbOptions {
    checkTablePrefix(tablePrefix);
  }

  /**
   * Checks the table prefix before it is spliced into SQL.
   *
   * @throws ConfigException naming the option and the value when {@code tablePrefix} is not a
   *     lower-case identifier of at most {@link #MAX_PREFIX_LENGTH} characters
   */
  static void checkTablePrefix(String tablePrefix) {
    Objects.requireNonNull(tablePrefix, "tablePrefix");
    boolean plain = IDENTIFIER.matcher(tablePrefix).matches();
    if (plain && tablePrefix.length() <= MAX_PREFIX_LENGTH) {
      return;
    }
    throw new ConfigException(
        String.format(
            "tablePrefix must be 1 to %d lower-case letters, digits and '_', not starting with a"
                + " digit (%s), but was '%s'",
            MAX_PREFIX_LENGTH, IDENTIFIER.pattern(), tablePrefix));
  }
}
