/**
 * The engine side of the five cursor strategies: decoding stored cursors, the cursor handed to
 * fetch, and how each page advances it. Not API.
 */
@NullMarked
package io.watukuy.internal.cursor;

import org.jspecify.annotations.NullMarked;
