/**
 * Effects (docs/effects.md): journaled side effects over a poller's event log, run in lanes on a
 * low-water mark, with the store's effect tables ({@code io.watukuy.spi.EffectStore}) for their
 * cursors, invocations and journal.
 */
module io.watukuy.effects {
  requires transitive io.watukuy;
  requires org.slf4j;
  requires static org.jspecify;

  exports io.watukuy.effects;
}
