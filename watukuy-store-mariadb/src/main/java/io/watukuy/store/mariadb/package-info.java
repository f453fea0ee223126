/**
 * {@link io.watukuy.store.mariadb.MariaDbStore}, the {@link io.watukuy.spi.StateStore} for several
 * instances on several hosts sharing one MariaDB database: all state of every poller key in InnoDB
 * tables, reached through any {@link javax.sql.DataSource} (a connection pool such as HikariCP),
 * with the lease epoch fencing every write under a row lock. Tables are created on first use or by
 * {@code migrate()}, or by the exported DDL ({@code MariaDbStore.DDL}); everything else in this
 * package is an implementation detail.
 */
@org.jspecify.annotations.NullMarked
package io.watukuy.store.mariadb;
