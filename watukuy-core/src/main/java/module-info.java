/**
 * watukuy's core: the engine, its application API ({@code io.watukuy}), the store SPI ({@code
 * io.watukuy.spi}) and the in-memory stores ({@code io.watukuy.store.memory}). The engine's own
 * packages ({@code io.watukuy.internal..}) are not exported; the bench's two hash benchmarks reach
 * the canonical hashing through a qualified export, and the effects runtime reaches it (journal
 * keys), the event envelope (reading the log) and the redaction of secrets (journal rows) the same
 * way.
 */
module io.watukuy {
  requires transitive com.fasterxml.jackson.databind;
  requires com.fasterxml.jackson.datatype.jsr310;
  requires java.management;
  requires transitive java.net.http;
  requires org.slf4j;
  requires static transitive org.jspecify;

  exports io.watukuy;
  exports io.watukuy.spi;
  exports io.watukuy.sink;

  uses io.watukuy.sink.SinkProvider;
  uses io.watukuy.BodyFormat;

  exports io.watukuy.store.memory;
  exports io.watukuy.internal.diff to
      io.watukuy.bench,
      io.watukuy.effects;
  exports io.watukuy.internal to
      io.watukuy.effects;
  exports io.watukuy.internal.http to
      io.watukuy.effects;
}
