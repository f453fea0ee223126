package io.watukuy.internal.diff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * Expected ids were computed outside Java with {@code printf '%s' '<text>' | sha256sum}; the
 * comment next to each one is the exact {@code <text>} that was hashed.
 */
class EventIdsTest {

  private static final String VERSION = "2026-01-01T00:00:00Z";

  @Test
  void hashesThePlainEventIdText() {
    // watukuy|v1|orders||o-1|2026-01-01T00:00:00Z|1|created
    assertThat(EventIds.eventId("orders", "", "o-1", VERSION, 1, "created"))
        .isEqualTo("41f3157d5747f8de9d80584d099d74395e657171ad1cabec52f28105d3cc6c6e");
  }

  @Test
  void includesThePartition() {
    // watukuy|v1|orders|eu|o-1|2026-01-01T00:00:00Z|1|created
    assertThat(EventIds.eventId("orders", "eu", "o-1", VERSION, 1, "created"))
        .isEqualTo("24c8d654706b51048ef0287bd33b5ce2f4e65919337e4d0f9bbad175d8d8eb9a");
  }

  @Test
  void escapesAPipeInAPart() {
    // watukuy|v1|orders||a\|b|v7|1|updated
    assertThat(EventIds.eventId("orders", "", "a|b", "v7", 1, "updated"))
        .isEqualTo("ea8f0b5e09396e4ad78e14a3576b39d7eb1fd8a7f04feb4c36e93ec50892b6a6");
  }

  @Test
  void escapesABackslashInAPart() {
    // watukuy|v1|orders||a\\b|v7|1|updated
    assertThat(EventIds.eventId("orders", "", "a\\b", "v7", 1, "updated"))
        .isEqualTo("a5a5aa7c04e9c8a86f49d533a75f087cb08a61fd9fa77ebbbd5d350fa203e939");
  }

  @Test
  void escapesABackslashBeforeAPipeAsThreeBackslashesAndAPipe() {
    // watukuy|v1|orders||o-1|x\\\|y|1|deleted
    assertThat(EventIds.eventId("orders", "", "o-1", "x\\|y", 1, "deleted"))
        .isEqualTo("53a75397d2039073969cf41c8627e4a9f813d337d16480130ab246eabec39b1d");
  }

  @Test
  void escapesAllSixVariablePartsAndWritesTheSchemaVersionInDecimal() {
    // watukuy|v1|sh\|op|e\\u|o-1|9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08|12|created
    assertThat(
            EventIds.eventId(
                "sh|op",
                "e\\u",
                "o-1",
                "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                12,
                "created"))
        .isEqualTo("e9c6830c47fc22a05e94255b539cfe08806f641086ffa77711996fec99dc7fe8");
  }

  @Test
  void hashesNonAsciiPartsAsUtf8() {
    // watukuy|v1|orders||über-ünïcödé-😂|v1|1|created
    assertThat(EventIds.eventId("orders", "", "über-ünïcödé-😂", "v1", 1, "created"))
        .isEqualTo("f6af7f8146917a3a4115ed1b1f70e17b1a9e3561e5b1e20dcff2960b71b4d19f");
  }

  @Test
  void givesEachEventTypeItsOwnId() {
    // watukuy|v1|orders||o-1|2026-01-01T00:00:00Z|1|created
    assertThat(EventIds.eventId("orders", "", "o-1", VERSION, 1, "created"))
        .isEqualTo("41f3157d5747f8de9d80584d099d74395e657171ad1cabec52f28105d3cc6c6e");
    // watukuy|v1|orders||o-1|2026-01-01T00:00:00Z|1|updated
    assertThat(EventIds.eventId("orders", "", "o-1", VERSION, 1, "updated"))
        .isEqualTo("30f46431b3fc0be51bf8db145a5a2eccf564223fc0d4cb3cf4d4189950253d13");
    // watukuy|v1|orders||o-1|2026-01-01T00:00:00Z|1|deleted
    assertThat(EventIds.eventId("orders", "", "o-1", VERSION, 1, "deleted"))
        .isEqualTo("f53c474ad24e6d9c40336f9735f930ca944181750f85f6066fe96e39c2a31b4c");
  }

  @Test
  void keepsFieldBoundariesUnambiguousThanksToEscaping() {
    // watukuy|v1|orders||a\|b|c|1|created
    String pipeInIdentity = EventIds.eventId("orders", "", "a|b", "c", 1, "created");
    // watukuy|v1|orders||a|b\|c|1|created
    String pipeInVersion = EventIds.eventId("orders", "", "a", "b|c", 1, "created");

    assertThat(pipeInIdentity)
        .isEqualTo("fcbe8b51fdca58a7c555eba6ec3c7beefe3ce9b68ec3f305807e951da101f44d");
    assertThat(pipeInVersion)
        .isEqualTo("5e952e3a325e330f649eb203ac6acb848662b488083a7114a2a4e3758e342e5a");
    assertThat(pipeInIdentity).isNotEqualTo(pipeInVersion);
    // Without escaping, both would be the hash of watukuy|v1|orders||a|b|c|1|created.
    assertThat(Sha256.hex("watukuy|v1|orders||" + "a|b" + "|" + "c" + "|1|created"))
        .isEqualTo(Sha256.hex("watukuy|v1|orders||" + "a" + "|" + "b|c" + "|1|created"))
        .isEqualTo("7d9bfc98ad17f65cb9fd335e21c956069eb81ba063f000a99e7a25f1ff4fb79a");
  }

  @Test
  void escapeDoublesBackslashesBeforeEscapingPipes() {
    assertThat(EventIds.escape("plain")).isEqualTo("plain");
    assertThat(EventIds.escape("")).isEmpty();
    assertThat(EventIds.escape("a|b")).isEqualTo("a\\|b");
    assertThat(EventIds.escape("a\\b")).isEqualTo("a\\\\b");
    assertThat(EventIds.escape("\\|")).isEqualTo("\\\\\\|");
    assertThat(EventIds.escape("||\\\\")).isEqualTo("\\|\\|\\\\\\\\");
  }

  @Test
  void rejectsNullParts() {
    assertThatThrownBy(() -> EventIds.escape(nullString()))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> EventIds.eventId("orders", nullString(), "o-1", "v1", 1, "created"))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void hashesTheEmptyStringToTheWellKnownSha256() {
    assertThat(Sha256.hex(""))
        .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assertThat(Sha256.hex(new byte[0]))
        .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  }

  @Test
  void hashesStringsAsTheirUtf8Bytes() {
    String text = "über-😂";

    assertThat(Sha256.hex(text))
        .isEqualTo(Sha256.hex(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
        .hasSize(64)
        .matches("[0-9a-f]{64}");
  }

  // The parameters are non-null by contract; this checks what happens when a caller breaks it.
  private static String nullString() {
    return null;
  }
}
