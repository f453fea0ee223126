/**
 * What the real-server examples' tests share: {@link io.watukuy.examples.support.Peers} installs
 * the pinned npm servers of {@code examples/peers} outside the source tree, {@link
 * io.watukuy.examples.support.LocalServer} runs one on a loopback port, {@link
 * io.watukuy.examples.support.JsonServerPeer} starts json-server on a seed and writes to it, and
 * {@link io.watukuy.examples.support.WatukuyCli} runs {@code watukuy} commands in-process and
 * parses the events they print, and {@link io.watukuy.examples.support.FileServer} serves a
 * folder's export or feed files as a vendor's endpoint does.
 */
@NullMarked
package io.watukuy.examples.support;

import org.jspecify.annotations.NullMarked;
