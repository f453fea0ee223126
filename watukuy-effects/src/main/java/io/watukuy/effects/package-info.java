/**
 * Effects (docs/effects.md): {@link io.watukuy.effects.Effect} declares one, {@link
 * io.watukuy.effects.Effects} runs them, {@link io.watukuy.effects.EffectContext} is what an arm
 * reaches while it runs.
 */
@NullMarked
package io.watukuy.effects;

import org.jspecify.annotations.NullMarked;
