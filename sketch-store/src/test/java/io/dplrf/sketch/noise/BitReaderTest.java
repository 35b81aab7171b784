package io.dplrf.sketch.noise;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.RandomBits;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.stats.ChiSquare;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;

class BitReaderTest {
  private static final SecretKey KEY = SecretKey.forTesting(777);

  /** Draws of every width, concatenated, are the stream's bits in order: none skipped or reused. */
  @Test
  void draws_concatenateToTheStream() {
    RandomBits words = KeyStream.of(KEY, "br-order").bits();
    BitReader reader = new BitReader(KeyStream.of(KEY, "br-order").bits());
    int[] widths = {1, 24, 53, 64, 7, 32, 64, 1, 1, 63, 64, 5, 59, 31, 33};
    BigInteger drawn = BigInteger.ZERO;
    int total = 0;
    for (int round = 0; round < 20; round++) {
      for (int k : widths) {
        long v = k == 1 ? (reader.bit() ? 1 : 0) : reader.bits(k);
        assertTrue(k == 64 || (v >>> k) == 0, "value wider than " + k + " bits");
        drawn = drawn.shiftLeft(k).or(BigInteger.valueOf(v).and(mask(k)));
        total += k;
      }
    }
    BigInteger stream = BigInteger.ZERO;
    for (int bits = 0; bits < total; bits += 64) {
      stream = stream.shiftLeft(64).or(BigInteger.valueOf(words.nextLong()).and(mask(64)));
    }
    int extra = ((total + 63) / 64) * 64 - total;
    assertEquals(stream.shiftRight(extra), drawn);
  }

  /** below32 and below64 are uniform: chi-square over [0, 5) and [0, 7), false alarm 1e-6 each. */
  @Test
  void belowBounds_areUniform() {
    BitReader reader = new BitReader(KeyStream.of(KEY, "br-uniform").bits());
    int n = 70_000;
    long[] five = new long[5];
    long[] seven = new long[7];
    for (int i = 0; i < n; i++) {
      five[reader.below32(5)]++;
      seven[(int) reader.below64(7)]++;
    }
    double[] e5 = new double[5];
    double[] e7 = new double[7];
    java.util.Arrays.fill(e5, n / 5.0);
    java.util.Arrays.fill(e7, n / 7.0);
    assertTrue(ChiSquare.upperTail(ChiSquare.statistic(five, e5), 4) > 1e-6);
    assertTrue(ChiSquare.upperTail(ChiSquare.statistic(seven, e7), 6) > 1e-6);
  }

  private static BigInteger mask(int k) {
    return BigInteger.ONE.shiftLeft(k).subtract(BigInteger.ONE);
  }
}
