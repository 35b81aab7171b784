package io.dplrf.sketch.noise;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.RandomBits;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.stats.ChiSquare;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DiscreteCauchyTest {
  private static final long SEED = 8128L;

  private static RandomBits bits(String label) {
    return KeyStream.of(SecretKey.forTesting(SEED), label).bits();
  }

  /** Z(s) = π s coth(π s). */
  private static double normaliser(double s) {
    return Math.PI * s / Math.tanh(Math.PI * s);
  }

  @Test
  void closedFormNormaliser_matchesTheSeries() {
    for (double s : new double[] {0.5, 1, 2.5, 7}) {
      double sum = 0;
      long m = 2_000_000;
      for (long x = -m; x <= m; x++) {
        sum += s * s / (s * s + (double) x * x);
      }
      sum += 2 * s * s / m; // Σ_{|x|>m} s²/x² ≈ 2s²/m
      assertEquals(normaliser(s), sum, 1e-6 * sum, "s=" + s);
    }
  }

  /**
   * 200,000 draws against the exact pmf s²/(s²+x²)/Z(s): bins for |x| ≤ B (expected count ≥ 20
   * each) and one bin per tail whose probability is 1 minus the rest (exact, not truncated);
   * Pearson chi-square, false alarm 1e-6 per s.
   */
  @ParameterizedTest
  @ValueSource(doubles = {0.6, 1, 2.5, 5.25})
  void smallScale_matchesExactPmf_includingTails_chiSquareFalseAlarm1e6(double s) {
    DiscreteCauchy c = DiscreteCauchy.withScale(s);
    RandomBits bits = bits("dc-pmf-" + s);
    int n = 200_000;
    double z = normaliser(s);
    int b = 0;
    while (n * s * s / (s * s + (b + 1.0) * (b + 1)) / z >= 20 && b < 2000) {
      b++;
    }
    int bins = 2 * b + 3; // [tail <-b], -b..b, [tail > b]
    double[] expected = new double[bins];
    double inside = 0;
    for (int x = -b; x <= b; x++) {
      double p = s * s / (s * s + (double) x * x) / z;
      expected[x + b + 1] = n * p;
      inside += p;
    }
    expected[0] = expected[bins - 1] = n * (1 - inside) / 2;
    long[] observed = new long[bins];
    for (int i = 0; i < n; i++) {
      BigInteger x = c.sample(bits);
      int idx = x.compareTo(BigInteger.valueOf(-b)) < 0 ? 0
          : x.compareTo(BigInteger.valueOf(b)) > 0 ? bins - 1 : x.intValueExact() + b + 1;
      observed[idx]++;
    }
    double p = ChiSquare.upperTail(ChiSquare.statistic(observed, expected), bins - 1);
    assertTrue(p > 1e-6, "p=" + p + " s=" + s + " seed " + SEED);
  }

  /**
   * s = 1.7·2^40: for large s the law of X/s is the standard Cauchy to within O(1/s), whose
   * |·| has median 1 and quartiles tan(π/8), tan(3π/8). Counts of 100,000 draws in the four
   * quartile bins of |X|/s, chi-square with 3 df, false alarm 1e-6. Heavy tails: a few draws
   * are astronomically large, which BigInteger holds without overflow.
   */
  @Test
  void hugeScale_quartilesOfTheAbsoluteValueAreCauchys() {
    double s = 1.7 * 0x1.0p40;
    DiscreteCauchy c = DiscreteCauchy.withScale(s);
    RandomBits bits = bits("dc-huge");
    int n = 100_000;
    double q1 = Math.tan(Math.PI / 8);
    double q3 = Math.tan(3 * Math.PI / 8);
    long[] observed = new long[4];
    for (int i = 0; i < n; i++) {
      double a = Math.abs(c.sample(bits).doubleValue()) / s;
      observed[a < q1 ? 0 : a < 1 ? 1 : a < q3 ? 2 : 3]++;
    }
    double[] expected = {n / 4.0, n / 4.0, n / 4.0, n / 4.0};
    double p = ChiSquare.upperTail(ChiSquare.statistic(observed, expected), 3);
    assertTrue(p > 1e-6, "p=" + p + " seed " + SEED + " counts " + java.util.Arrays.toString(observed));
  }

  @Test
  void blockUnit_isTheCeilingOfS() {
    assertEquals(BigInteger.valueOf(3), DiscreteCauchy.withScale(2.5).blockUnit());
    assertEquals(BigInteger.valueOf(2), DiscreteCauchy.withScale(2).blockUnit());
    assertEquals(BigInteger.ONE, DiscreteCauchy.withScale(0.25).blockUnit());
  }
}
