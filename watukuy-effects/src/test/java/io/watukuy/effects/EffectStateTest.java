package io.watukuy.effects;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** docs/effects.md, "States": quarantined > blocked > wedged > lagging > ok. */
class EffectStateTest {
  @Test
  void eachStateOutranksTheOnesAfterIt() {
    assertThat(EffectState.derive(true, true, 3, 9)).isEqualTo(EffectState.QUARANTINED);
    assertThat(EffectState.derive(false, true, 3, 9)).isEqualTo(EffectState.BLOCKED);
    assertThat(EffectState.derive(false, false, 3, 9)).isEqualTo(EffectState.WEDGED);
    assertThat(EffectState.derive(false, false, 0, 9)).isEqualTo(EffectState.LAGGING);
    assertThat(EffectState.derive(false, false, 0, 0)).isEqualTo(EffectState.OK);
    assertThat(EffectState.WEDGED.wire()).isEqualTo("wedged");
  }
}
