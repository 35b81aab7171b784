package io.dplrf.sketch.randomness;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.matrix.SketchMatrix;
import io.dplrf.sketch.stats.ChiSquare;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class GaussianMatricesTest {
  private static final long SEED = 977L;

  @Test
  void columnRange_equalsColumnByColumnAndEntryDefinition() {
    int rows = 7; // odd: half the columns start mid-AES-block
    int cols = 40;
    SketchMatrix m = GaussianMatrices.gaussian(SecretKey.forTesting(SEED), "phi", rows, cols, 2.5);
    double[] all = new double[rows * cols];
    m.columns(0, cols, all);
    double[] mid = new double[rows * 13];
    m.columns(5, 18, mid);
    assertArrayEquals(Arrays.copyOfRange(all, 5 * rows, 18 * rows), mid);
    KeyStream ks = KeyStream.of(SecretKey.forTesting(SEED), "phi");
    byte[] word = new byte[8];
    for (int j = 0; j < cols; j++) {
      double[] col = m.column(j);
      for (int i = 0; i < rows; i++) {
        long e = (long) j * rows + i;
        ks.fill(8 * e, word, 0, 8);
        double expected = 2.5 * GaussianMatrices.standardNormal(ByteBuffer.wrap(word).getLong());
        assertEquals(expected, col[i], 0.0, "entry (" + i + "," + j + ")");
        assertEquals(expected, all[(int) e], 0.0);
      }
    }
  }

  @Test
  void largeRange_spanningManyChunks_matchesSmallRanges() {
    SketchMatrix m = GaussianMatrices.gaussian(SecretKey.forTesting(SEED), "big", 3001, 5, 1.0);
    double[] all = new double[3001 * 5];
    m.columns(0, 5, all);
    for (int j = 0; j < 5; j++) {
      assertArrayEquals(Arrays.copyOfRange(all, j * 3001, (j + 1) * 3001), m.column(j));
    }
    assertEquals(m.toDense().get(3000, 4), all[5 * 3001 - 1], 0.0);
  }

  @Test
  void standardNormal_isExactlyAntisymmetricUnderBitComplement() {
    RandomBits bits = KeyStream.of(SecretKey.forTesting(SEED), "sym").bits();
    for (int i = 0; i < 10_000; i++) {
      long w = bits.nextLong();
      assertEquals(-GaussianMatrices.standardNormal(w), GaussianMatrices.standardNormal(~w), 0.0);
    }
    // The extreme words map to the extreme grid points (k + 1/2)·2^-53, finite.
    assertEquals(InverseNormal.quantile(0x1.0p-54), GaussianMatrices.standardNormal(0L), 0.0);
    assertTrue(Double.isFinite(GaussianMatrices.standardNormal(-1L)));
  }

  /** AS241 against high-precision reference quantiles (R qnorm / mpmath). */
  @Test
  void inverseNormal_matchesKnownQuantiles() {
    assertEquals(1.959963984540054, InverseNormal.quantile(0.975), 1e-15);
    assertEquals(0.0, InverseNormal.quantile(0.5), 0.0);
    assertEquals(-1.2815515655446004, InverseNormal.quantile(0.1), 1e-15);
    assertEquals(2.3263478740408408, InverseNormal.quantile(0.99), 1e-15);
    assertEquals(-4.264890793922825, InverseNormal.quantile(1e-5), 1e-14);
    assertEquals(-6.361340902404056, InverseNormal.quantile(1e-10), 1e-14);
    assertEquals(-9.262340089798408, InverseNormal.quantile(1e-20), 1e-13);
    assertEquals(6.361340902404056, InverseNormal.upperQuantileOfTail(1e-10), 1e-14);
    assertThrows(IllegalArgumentException.class, () -> InverseNormal.quantile(0.0));
  }

  /**
   * 100,000 entries into 100 equiprobable bins (edges from an independent Simpson-rule Φ);
   * Pearson chi-square with 99 degrees of freedom; falsely rejects with probability 1e-6. Mean and
   * variance checked against CLT bounds at two-sided false-alarm 1e-6 each.
   */
  @Test
  void entries_areStandardNormal_chiSquareFalseAlarm1e6() {
    String label = "normality";
    double sd = 3.0;
    int rows = 1000;
    int cols = 100;
    int n = rows * cols;
    SketchMatrix m = GaussianMatrices.gaussian(SecretKey.forTesting(SEED), label, rows, cols, sd);
    double[] x = new double[n];
    m.columns(0, cols, x);
    int bins = 100;
    long[] counts = new long[bins];
    double sum = 0;
    double sumSq = 0;
    for (double v : x) {
      int b = (int) Math.min(bins - 1, Math.floor(ChiSquare.normalCdf(v / sd) * bins));
      counts[b]++;
      sum += v;
      sumSq += v * v;
    }
    double[] expected = new double[bins];
    Arrays.fill(expected, (double) n / bins);
    double p = ChiSquare.upperTail(ChiSquare.statistic(counts, expected), bins - 1);
    String where = " (seed " + SEED + ", label " + label + ")";
    assertTrue(p > 1e-6, "chi-square p=" + p + where);
    double mean = sum / n;
    double var = sumSq / n - mean * mean;
    double z = ChiSquare.Z_1E6_TWO_SIDED;
    assertTrue(Math.abs(mean) <= z * sd / Math.sqrt(n), "mean " + mean + where);
    // Var(sample variance) ≈ 2σ⁴/n for normal data.
    assertTrue(Math.abs(var / (sd * sd) - 1) <= z * Math.sqrt(2.0 / n), "variance " + var + where);
  }

  @Test
  void invalidArguments_areRejectedWithOneMessageShape() {
    SecretKey key = SecretKey.forTesting(SEED);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> GaussianMatrices.gaussian(key, "x", 0, 3, 1.0));
    assertEquals("rows must be > 0. Provided value: 0", e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> GaussianMatrices.gaussian(key, "x", 3, 3, Double.NaN));
    SketchMatrix m = GaussianMatrices.gaussian(key, "x", 3, 3, 1.0);
    assertThrows(IllegalArgumentException.class, () -> m.columns(2, 4, new double[6]));
    assertThrows(IllegalArgumentException.class, () -> m.columns(0, 2, new double[5]));
  }
}
