/**
 * The command line: {@code watukuy run|demo|inspect|…} over a YAML file (docs/config.md). An
 * application, not a library: it exports nothing.
 */
module io.watukuy.cli {
  requires io.watukuy;
  requires io.watukuy.auth;
  requires io.watukuy.formats;
  requires io.watukuy.micrometer;
  requires io.watukuy.admin;
  requires io.watukuy.effects;
  requires io.watukuy.store.sqlite;
  requires io.watukuy.store.postgres;
  requires io.watukuy.store.mariadb;
  requires io.watukuy.store.redis;
  requires com.fasterxml.jackson.dataformat.yaml;
  requires org.yaml.snakeyaml;
  requires com.zaxxer.hikari;
  requires org.postgresql.jdbc;
  requires info.picocli;
  requires com.networknt.schema;
  requires jdk.httpserver;
  requires jdk.unsupported; // sun.misc.Signal: SIGTERM drains like Ctrl-C
  requires org.slf4j;
  requires static org.jspecify;

  // sink: sections: any provider on the path; stdout and file are this module's own
  uses io.watukuy.sink.SinkProvider;

  provides io.watukuy.sink.SinkProvider with
      io.watukuy.cli.StdoutSinkProvider,
      io.watukuy.cli.FileSinkProvider;

  // picocli fills the commands' annotated fields by reflection
  opens io.watukuy.cli to
      info.picocli;
}
