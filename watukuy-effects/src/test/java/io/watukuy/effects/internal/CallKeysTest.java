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
  void theIdempotencyKeyIsTheHashOfTheEventAndTheJournalKeyLengthPrefixed() {
    // sha256("6:Notify|6:orders|2:eu|7|abc"), computed with sha256sum
    assertThat(CallKeys.idempotencyKey("Notify", "orders", "eu", 7, "abc"))
        .isEqualTo("95238a4435e490d190f59fc4f8ee2f333d7b79ea2a729cf54868206bb5127c67");
    assertThat(CallKeys.idempotencyKey("Notify", "orders", "", 7, "abc"))
        .isEqualTo("792f5205ee9cf2c7fc526b5d5fb7e633dad50e040fe0a0487717c968163a49e1")
        .isNotEqualTo(CallKeys.idempotencyKey("Notify", "orders", "", 8, "abc"))
        .isNotEqualTo(CallKeys.idempotencyKey("Welcome", "orders", "", 7, "abc"))
        .isNotEqualTo(CallKeys.idempotencyKey("Notify", "orders", "", 7, "abd"));
    // moving text between poller and partition changes the key
    assertThat(CallKeys.idempotencyKey("Notify", "orders|", "eu", 7, "abc"))
        .isNotEqualTo(CallKeys.idempotencyKey("Notify", "orders", "|eu", 7, "abc"));
  }

  @Test
  void argumentsWithoutCanonicalJsonAreRefusedNamingEffectAndCall() {
    assertThatThrownBy(() -> CallKeys.canonicalArgs("Notify", "ratio", Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "effect Notify: the arguments of call 'ratio' cannot be written as canonical JSON");
  }
}
