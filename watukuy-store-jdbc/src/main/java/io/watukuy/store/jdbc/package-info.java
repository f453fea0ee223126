/**
 * The {@link io.watukuy.spi.StateStore} engine of the SQL stores, written once over JDBC: leases
 * and their fencing (guarantee G5), the atomic page commit (G4), the outbox keyed by sequence,
 * parked rows, HTTP validators, the replay log, the identity stream, row mapping and the mapping of
 * driver failures to {@link io.watukuy.StoreException}.
 *
 * <p>What differs between databases is a {@link io.watukuy.store.jdbc.SqlDialect}: the time codec,
 * identifier quoting, how a write transaction locks a key, upsert and multi-row syntax, which
 * driver failures may be retried, the DDL and its migrations. A store front ({@code SqliteStore},
 * {@code PostgresStore}) holds its options, its dialect and a {@link
 * io.watukuy.store.jdbc.JdbcStoreEngine}, and delegates every {@code StateStore} call to it. This
 * module depends on no driver; each front's module brings its own.
 */
@org.jspecify.annotations.NullMarked
package io.watukuy.store.jdbc;
