/** The effects runtime: the reader's lanes and watermark, invocations and their journal. */
@NullMarked
package io.watukuy.effects.internal;

import org.jspecify.annotations.NullMarked;
