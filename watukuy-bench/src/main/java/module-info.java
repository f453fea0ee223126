/**
 * The benchmarks: the JMH suite and the end-to-end bench (bench/run.sh). The two hash benchmarks
 * measure the canonical hashing inside core through a qualified export; everything else uses the
 * public API.
 */
module io.watukuy.bench {
  requires io.watukuy;
  requires io.watukuy.testing;
  requires io.watukuy.store.sqlite;
  requires io.watukuy.store.postgres;
  requires io.watukuy.store.mariadb;
  requires io.watukuy.store.redis;
  requires com.zaxxer.hikari;
  requires org.postgresql.jdbc;
  requires jmh.core;
  requires jdk.httpserver;
  requires java.sql;
  requires java.management;
  requires jdk.management;
  requires kafka.clients;
  requires com.rabbitmq.client;
  requires io.nats.jnats;
  requires static org.jspecify;

  // The sink bench makes each sink through its provider, as a sink: section does.
  uses io.watukuy.sink.SinkProvider;

  // The Camel peer (bench/camel) reuses the listing server, the plain fetch and the results JSON.
  exports io.watukuy.bench;

  // JMH instantiates the benchmark states and runs the generated harness by reflection
  opens io.watukuy.bench to
      jmh.core;
  opens io.watukuy.bench.jmh_generated to
      jmh.core;
}
