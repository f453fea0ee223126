/** The effects example's local vendor and webhook receiver (examples/effects/README.md). */
package io.watukuy.examples.effects;
