package io.dplrf.sketch.noise;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.RandomBits;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.stats.ChiSquare;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DiscreteLaplaceTest {
  private static final long SEED = 4242L;

  private static RandomBits bits(String label) {
    return KeyStream.of(SecretKey.forTesting(SEED), label).bits();
  }

  /**
   * Exact pmf ∝ exp(−|x|·den/num): 200,000 draws, Pearson chi-square (tails pooled); falsely
   * rejects with probability 1e-6 per scale.
   */
  @ParameterizedTest
  @CsvSource({"1,1", "3,2", "1,3", "7,1", "10,3"})
  void smallScale_matchesExactPmf_chiSquareFalseAlarm1e6(long num, long den) {
    String label = "dlap-pmf-" + num + "/" + den;
    DiscreteLaplace d = DiscreteLaplace.withScale(num, den);
    RandomBits bits = bits(label);
    double p = PmfCheck.pValue(() -> d.sample(bits),
        x -> Math.exp(-Math.abs(x) * (double) den / num), 200_000, 200 * num / den + 200);
    assertTrue(p > 1e-6, "p=" + p + " seed " + SEED + " label " + label);
  }

  /**
   * Scale b = 1000: exact second and fourth moments by summing the pmf; the sample variance of n
   * draws is approximately normal with variance (m4 − m2²)/n (CLT); bound at two-sided false alarm
   * 1e-6, plus the mean at the same rate.
   */
  @Test
  void largeScale_meanAndVariance_withinCltBounds() {
    long b = 1000;
    double q = Math.exp(-1.0 / b);
    double norm = 0;
    double m2 = 0;
    double m4 = 0;
    for (long x = -80 * b; x <= 80 * b; x++) {
      double w = Math.pow(q, Math.abs(x));
      norm += w;
      m2 += w * x * x;
      m4 += w * (double) x * x * x * x;
    }
    m2 /= norm;
    m4 /= norm;
    String label = "dlap-large";
    DiscreteLaplace d = DiscreteLaplace.withScale(b, 1);
    RandomBits bits = bits(label);
    int n = 200_000;
    double sum = 0;
    double sumSq = 0;
    for (int i = 0; i < n; i++) {
      double x = d.sample(bits);
      sum += x;
      sumSq += x * x;
    }
    double mean = sum / n;
    double var = sumSq / n - mean * mean;
    double z = ChiSquare.Z_1E6_TWO_SIDED;
    String where = " seed " + SEED + " label " + label;
    assertTrue(Math.abs(mean) <= z * Math.sqrt(m2 / n), "mean " + mean + where);
    assertTrue(Math.abs(var - m2) <= z * Math.sqrt((m4 - m2 * m2) / n),
        "var " + var + " vs " + m2 + where);
  }

  @Test
  void invalidScale_isRejected() {
    assertThrows(IllegalArgumentException.class, () -> DiscreteLaplace.withScale(0, 1));
    assertThrows(IllegalArgumentException.class, () -> DiscreteLaplace.withScale(1, 1L << 31));
  }
}
