package io.watukuy.effects.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** docs/effects.md, "The journal": a call's key is what the call is, canonically. */
class CallKeysTest {
  record Charge(String customer, long cents) {}

  @Test
  void argumentsAreCanonicalSoMemberOrderAndNumberFormDoNotMatter() {
    Map<String, Object> ab = new LinkedHashMap<>();
    ab.put("a", 1);
    ab.put("b", List.of(2.0, "x"));
    Map<String, Object> ba = new LinkedHashMap<>();
    ba.put("b", List.of(2, "x"));
    ba.put("a", 1.0);
    assertThat(CallKeys.canonicalArgs("E", "c", ab)).isEqualTo("{\"a\":1,\"b\":[2,\"x\"]}");
    assertThat(CallKeys.canonicalArgs("E", "c", ba)).isEqualTo("{\"a\":1,\"b\":[2,\"x\"]}");
    assertThat(CallKeys.canonicalArgs("E", "c", new Charge("c-1", 500)))
        .isEqualTo("{\"cents\":500,\"customer\":\"c-1\"}");
    assertThat(CallKeys.canonicalArgs("E", "c", null)).isEqualTo("null");
  }

  @Test
  void theKeyTellsNameArgumentsAndOrdinalApartAndIsStable() {
    String k = CallKeys.key("charge", "{\"a\":1}", 0);
    assertThat(k).matches("[0-9a-f]{64}").isEqualTo(CallKeys.key("charge", "{\"a\":1}", 0));
    assertThat(k)
        .isNotEqualTo(CallKeys.key("charge", "{\"a\":1}", 1))
        .isNotEqualTo(CallKeys.key("charge", "{\"a\":2}", 0))
        .isNotEqualTo(CallKeys.key("refund", "{\"a\":1}", 0));
    // the parts are length-prefixed: moving text between name and arguments changes the key
    assertThat(CallKeys.key("ab", "\"c\"", 0)).isNotEqualTo(CallKeys.key("a", "b\"c\"", 0));
  }

  @Test
  void argumentsWithoutCanonicalJsonAreRefusedNamingEffectAndCall() {
    assertThatThrownBy(() -> CallKeys.canonicalArgs("Notify", "ratio", Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "effect Notify: the arguments of call 'ratio' cannot be written as canonical JSON");
  }
}
