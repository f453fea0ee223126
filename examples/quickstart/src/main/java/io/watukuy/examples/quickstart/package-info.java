/** The README quickstart: a poller against a local stand-in for a vendor API, state in SQLite. */
package io.watukuy.examples.quickstart;
