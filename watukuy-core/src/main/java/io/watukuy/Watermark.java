package io.watukuy;

import org.jspecify.annotations.Nullable;

/**
 * The timestamp strategy's cursor: a composite keyset {@code (value, tieBreak)}. Fetch must request
 * items with {@code field >= value} and, when {@code tieBreak} is non-null, {@code tieBreak >
 * this.tieBreak} for items at exactly {@code value}.
 *
 * @param value the server's own string of the largest field value seen, or {@code null} for "from
 *     the beginning"
 * @param tieBreak the largest tie-break value seen at {@code value} (a JSON number kept as its JSON
 *     text), or {@code null}
 * @since 0.1
 */
public record Watermark(@Nullable String value, @Nullable String tieBreak) {}
