/**
 * A watukuy application as a named module: it reads core and a store, and opens its item records to
 * Jackson, which turns them into JSON to diff and hash them.
 */
module io.watukuy.examples.modulepath {
  requires io.watukuy;
  requires io.watukuy.store.sqlite;

  opens io.watukuy.examples.modulepath to
      com.fasterxml.jackson.databind;
}
