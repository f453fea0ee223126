/**
 * The {@code watukuy} command line ({@link io.watukuy.cli.Main}): pollers declared in YAML, run
 * once from cron or as a daemon, plus the operations on their stored state. Everything but {@code
 * Main} is an implementation detail.
 */
@org.jspecify.annotations.NullMarked
package io.watukuy.cli;
