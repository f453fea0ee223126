/**
 * {@link io.watukuy.store.sqlite.SqliteStore}, the {@link io.watukuy.spi.StateStore} for one host:
 * all state of every poller key in one SQLite file (or a private in-process database), opened
 * through {@code org.xerial:sqlite-jdbc} in WAL mode so that several processes on that host can
 * share the file, with the lease epoch fencing every write. Tables are created on first use or by
 * {@code migrate()}; everything else in this package is an implementation detail.
 */
@org.jspecify.annotations.NullMarked
package io.watukuy.store.sqlite;
