/**
 * Content hashing for change detection: {@link io.watukuy.internal.diff.Jcs} turns a Jackson tree
 * into its RFC 8785 (JSON Canonicalization Scheme) bytes so that two payloads that differ only in
 * key order, whitespace or number spelling hash the same; {@link io.watukuy.internal.diff.Sha256}
 * hashes those bytes; and {@link io.watukuy.internal.diff.EventIds} derives the deterministic event
 * id that lets consumers deduplicate redelivered events. Internal: not part of the public API and
 * may change without notice.
 */
@org.jspecify.annotations.NullMarked
package io.watukuy.internal.diff;
