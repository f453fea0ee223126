/**
 * The database table sink (docs/sinks.md, "Database tables"): {@link
 * io.watukuy.sink.jdbc.TableSink} writes every event as a row of a table in PostgreSQL, MariaDB or
 * SQLite (insert mode, deduplicated by the delivery key), or keeps a mirror table keyed by
 * identity; with {@code sameDatabase: true} the rows and the batch's ack commit in one store
 * transaction.
 */
@NullMarked
package io.watukuy.sink.jdbc;

import org.jspecify.annotations.NullMarked;
