package io.dplrf.sketch.noise;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.RandomBits;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.stats.ChiSquare;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class DiscreteGaussianTest {
  private static final long SEED = 31337L;

  private static RandomBits bits(String label) {
    return KeyStream.of(SecretKey.forTesting(SEED), label).bits();
  }

  /**
   * Exact pmf ∝ exp(−x²/(2s²)): 200,000 draws, Pearson chi-square over integers (tails pooled);
   * falsely rejects with probability 1e-6 per s.
   */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 7})
  void smallScale_matchesExactPmf_chiSquareFalseAlarm1e6(long s) {
    String label = "dg-pmf-" + s;
    DiscreteGaussian dg = DiscreteGaussian.withScale(s);
    RandomBits bits = bits(label);
    double p = PmfCheck.pValue(() -> dg.sample(bits),
        x -> Math.exp(-(double) x * x / (2.0 * s * s)), 200_000, 60 * s + 60);
    assertTrue(p > 1e-6, "p=" + p + " seed " + SEED + " label " + label);
  }

  /**
   * s = 2^30 (the grid's scale): for s ≥ 2 the discrete Gaussian's variance equals s² to within a
   * relative 1e-15 (Poisson summation: the correction is of order s²·e^{−2π²s²}·poly(s)), and its
   * kurtosis is the normal one, so by the CLT the sample variance of n draws has relative standard
   * deviation √(2/n) and the mean standard deviation s/√n. Bounds at two-sided false alarm 1e-6
   * each.
   */
  @Test
  void largeScale_meanAndVariance_withinCltBounds() {
    long s = 1L << 30;
    String label = "dg-large";
    DiscreteGaussian dg = DiscreteGaussian.withScale(s);
    RandomBits bits = bits(label);
    int n = 200_000;
    double sum = 0;
    double sumSq = 0;
    for (int i = 0; i < n; i++) {
      double x = dg.sample(bits);
      sum += x;
      sumSq += x * x;
    }
    double mean = sum / n;
    double var = sumSq / n - mean * mean;
    double z = ChiSquare.Z_1E6_TWO_SIDED;
    String where = " seed " + SEED + " label " + label;
    assertTrue(Math.abs(mean) <= z * s / Math.sqrt(n), "mean " + mean + where);
    assertTrue(Math.abs(var / ((double) s * s) - 1) <= z * Math.sqrt(2.0 / n), "var " + var + where);
  }

  @Test
  void largestScale_sampleIsFinite() {
    DiscreteGaussian dg = DiscreteGaussian.withScale(DiscreteGaussian.MAX_SCALE);
    RandomBits bits = bits("dg-max");
    for (int i = 0; i < 1000; i++) {
      long x = dg.sample(bits);
      assertTrue(Math.abs(x) < 40 * DiscreteGaussian.MAX_SCALE, "x=" + x);
    }
  }

  @Test
  void invalidScale_isRejected() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> DiscreteGaussian.withScale(0));
    assertEquals("s must be in [1, 2^31 - 1]. Provided value: 0", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> DiscreteGaussian.withScale(1L << 31));
  }

}
