package io.watukuy.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import org.junit.jupiter.api.Test;

/**
 * Identities and versions are strings, or integers written as decimal text (docs/architecture.md,
 * "Identity and version values").
 */
class ValuesTest {
  @Test
  void stringsAndIntegersBecomeText() {
    assertThat(Values.text("a|b")).isEqualTo("a|b");
    assertThat(Values.text(42)).isEqualTo("42");
    assertThat(Values.text(-7L)).isEqualTo("-7");
    assertThat(Values.text(new BigInteger("123456789012345678901234567890")))
        .isEqualTo("123456789012345678901234567890");
    assertThat(Values.text(Json.tree("123456789012345678901234567890")))
        .isEqualTo("123456789012345678901234567890");
    assertThat(Values.text(Json.tree("\"x\""))).isEqualTo("x");
    assertThat(Values.text(Json.tree("null"))).isNull();
  }

  @Test
  void anythingElseIsRejectedNamingItsType() {
    assertThatThrownBy(() -> Values.text(1.5)).hasMessageContaining("Double");
    assertThatThrownBy(() -> Values.text(Json.tree("1.5"))).hasMessageContaining("number");
    assertThatThrownBy(() -> Values.text(Json.tree("{\"a\":1}"))).hasMessageContaining("object");
    assertThatThrownBy(() -> Values.text(true)).hasMessageContaining("Boolean");
  }

  @Test
  void dotPathsReachNestedFields() {
    assertThat(
            Values.path(Json.tree("{\"meta\":{\"updatedAt\":\"t\"}}"), "meta.updatedAt").asText())
        .isEqualTo("t");
    assertThat(Values.path(Json.tree("{\"meta\":{}}"), "meta.updatedAt").isMissingNode()).isTrue();
  }
}
