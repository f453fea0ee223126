package io.watukuy.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class SeededRandomTest {

  @Test
  void sameSeedGivesSameFirstHundredLongs() {
    SeededRandom a = SeededRandom.of(7);
    SeededRandom b = SeededRandom.of(7);

    long[] first = LongStream.generate(a::nextLong).limit(100).toArray();
    long[] second = LongStream.generate(b::nextLong).limit(100).toArray();

    assertThat(first).containsExactly(second);
  }

  @Test
  void differentSeedsGiveDifferentSequences() {
    long[] seven = LongStream.generate(SeededRandom.of(7)::nextLong).limit(100).toArray();
    long[] eight = LongStream.generate(SeededRandom.of(8)::nextLong).limit(100).toArray();

    assertThat(seven).isNotEqualTo(eight);
    assertThat(seven[0]).isNotEqualTo(eight[0]);
  }

  @Test
  void seedFortyTwoStartsWithTheReferenceSplitMix64Values() {
    // Computed independently twice, with the same results: by a reference SplitMix64 written in
    // Python (state += 0x9E3779B97F4A7C15; z ^= z>>30; z *= 0xBF58476D1CE4E5B9; z ^= z>>27;
    // z *= 0x94D049BB133111EB; z ^= z>>31; all mod 2^64, printed as signed), and in JShell by
    // new java.util.SplittableRandom(42).nextLong() three times.
    SeededRandom random = SeededRandom.of(42);

    assertThat(random.nextLong()).isEqualTo(-4767286540954276203L);
    assertThat(random.nextLong()).isEqualTo(2949826092126892291L);
    assertThat(random.nextLong()).isEqualTo(5139283748462763858L);
  }

  @Test
  void nextDoubleUsesTheTop53BitsOfNextLong() {
    // Same two sources: Python (first value >> 11) * 2**-53, and JShell
    // new java.util.SplittableRandom(42).nextDouble().
    assertThat(SeededRandom.of(42).nextDouble()).isEqualTo(0.7415648787718233);
  }

  @Test
  void seedIsKeptAfterDrawing() {
    SeededRandom random = SeededRandom.of(42);
    random.nextLong();

    assertThat(random.seed()).isEqualTo(42);
    assertThat(random).hasToString("SeededRandom[seed=42]");
  }

  @Test
  void splitAtTheSamePointGivesTheSameChild() {
    SeededRandom a = SeededRandom.of(3).split();
    SeededRandom b = SeededRandom.of(3).split();

    assertThat(a.seed()).isEqualTo(b.seed());
    assertThat(a.nextLong()).isEqualTo(b.nextLong());
  }

  @Test
  void splitConsumesOneValueOfTheParent() {
    SeededRandom parent = SeededRandom.of(3);
    SeededRandom reference = SeededRandom.of(3);

    SeededRandom child = parent.split();

    assertThat(child.seed()).isEqualTo(reference.nextLong());
    assertThat(parent.nextLong()).isEqualTo(reference.nextLong());
  }

  @Test
  void boundedValuesStayWithinTheirRanges() {
    SeededRandom random = SeededRandom.of(11);
    for (int i = 0; i < 10_000; i++) {
      assertThat(random.nextInt(7)).isBetween(0, 6);
      assertThat(random.nextInt(-3, 4)).isBetween(-3, 3);
      assertThat(random.nextLong(1_000_000_007L)).isBetween(0L, 1_000_000_006L);
      assertThat(random.nextLong(Long.MIN_VALUE, 0)).isNegative();
      assertThat(random.nextDouble()).isGreaterThanOrEqualTo(0.0).isLessThan(1.0);
      assertThat(random.nextDouble(2.5)).isGreaterThanOrEqualTo(0.0).isLessThan(2.5);
      assertThat(random.nextDouble(-1.0, 1.0)).isGreaterThanOrEqualTo(-1.0).isLessThan(1.0);
      assertThat(random.nextFloat()).isGreaterThanOrEqualTo(0.0f).isLessThan(1.0f);
    }
  }

  @Test
  void boundedIntsCoverTheWholeRange() {
    SeededRandom random = SeededRandom.of(5);
    boolean[] seen = new boolean[10];
    for (int i = 0; i < 1_000; i++) {
      seen[random.nextInt(10)] = true;
    }

    assertThat(seen).containsOnly(true);
  }

  @Test
  void invalidBoundsAreRejected() {
    SeededRandom random = SeededRandom.of(1);

    assertThatThrownBy(() -> random.nextInt(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bound must be positive, but was 0");
    assertThatThrownBy(() -> random.nextLong(5, 5)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> random.nextDouble(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> random.nextDouble(1.0, -1.0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
