package io.dplrf.sketch.noise;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.RandomBits;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.stats.ChiSquare;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RationalDiscreteGaussianTest {
  private static final long SEED = 4242L;

  private static RandomBits bits(String label) {
    return KeyStream.of(SecretKey.forTesting(SEED), label).bits();
  }

  /**
   * Non-integer scales (σ² a dyadic rational): 200,000 draws against the exact pmf
   * ∝ exp(−x²/(2s²)), Pearson chi-square over integers with pooled tails; falsely rejects with
   * probability 1e-6 per s.
   */
  @ParameterizedTest
  @ValueSource(doubles = {0.75, 1.5, 2.375, 6.1})
  void nonIntegerScale_matchesExactPmf_chiSquareFalseAlarm1e6(double s) {
    String label = "rdg-pmf-" + s;
    RationalDiscreteGaussian g = RationalDiscreteGaussian.withScale(s);
    RandomBits bits = bits(label);
    double p = PmfCheck.pValue(() -> g.sample(bits).longValueExact(),
        x -> Math.exp(-(double) x * x / (2.0 * s * s)), 200_000, (long) (60 * s) + 60);
    assertTrue(p > 1e-6, "p=" + p + " seed " + SEED + " label " + label);
  }

  /**
   * s = 1.3·2^50 (beyond {@link DiscreteGaussian}'s 2^31): sample mean and variance of 100,000
   * draws within their CLT bounds at two-sided false alarm 1e-6 each (the discrete Gaussian's
   * variance equals s² to a relative e^{−2π²s²}·poly(s), zero here).
   */
  @Test
  void hugeScale_meanAndVariance_withinCltBounds() {
    double s = 1.3 * 0x1.0p50;
    RationalDiscreteGaussian g = RationalDiscreteGaussian.withScale(s);
    RandomBits bits = bits("rdg-huge");
    int n = 100_000;
    double sum = 0;
    double sumSq = 0;
    for (int i = 0; i < n; i++) {
      double x = g.sample(bits).doubleValue() / s;
      sum += x;
      sumSq += x * x;
    }
    double mean = sum / n;
    double var = sumSq / n - mean * mean;
    double z = ChiSquare.Z_1E6_TWO_SIDED;
    assertTrue(Math.abs(mean) <= z / Math.sqrt(n), "mean/s " + mean + " seed " + SEED);
    assertTrue(Math.abs(var - 1) <= z * Math.sqrt(2.0 / n), "var/s^2 " + var + " seed " + SEED);
  }

  @Test
  void withScale_isExact_andRejectsNonPositive() {
    BigInteger[] sq = BigExact.squareOf("s", 1.5);
    assertEquals(BigInteger.valueOf(9), sq[0].multiply(BigInteger.valueOf(4)).divide(sq[1]));
    assertEquals(BigInteger.ZERO, sq[0].multiply(BigInteger.valueOf(4)).mod(sq[1]));
    assertThrows(IllegalArgumentException.class, () -> RationalDiscreteGaussian.withScale(0));
    assertThrows(IllegalArgumentException.class,
        () -> RationalDiscreteGaussian.withScale(Double.POSITIVE_INFINITY));
  }

  @Test
  void uniformBelow_largeBound_isInRange_andCoversTheTopHalf() {
    RandomBits bits = bits("big-uniform");
    BigInteger bound = BigInteger.ONE.shiftLeft(100).add(BigInteger.valueOf(12345));
    int top = 0;
    for (int i = 0; i < 2000; i++) {
      BigInteger u = BigExact.uniformBelow(bits, bound);
      assertTrue(u.signum() >= 0 && u.compareTo(bound) < 0, u.toString());
      if (u.testBit(99)) {
        top++;
      }
    }
    // P[bit 99 set] = 2^99/bound ≈ 1/2: 2000 draws, 6 standard deviations ≈ 134.
    assertTrue(Math.abs(top - 1000) < 134, "top=" + top + " seed " + SEED);
  }
}
